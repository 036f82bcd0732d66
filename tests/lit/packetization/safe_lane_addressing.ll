; Safe Lane Addressing: where gathers expand lane by lane (-fast-gather),
; the masked gathers of `then` become unmasked ones whose inactive lanes load
; from @__vecz_b_safe_slot_p1; with +fast-gather they keep their mask.
; RUN: %veczc -k pick -w 4 -S -vecz-target-features=-fast-gather %s | FileCheck %s --check-prefix=SLOW
; RUN: %veczc -k pick -w 4 -S -vecz-target-features=+fast-gather %s | FileCheck %s --check-prefix=FAST

; SLOW: @__vecz_b_safe_slot_p1 = internal unnamed_addr addrspace(1) constant [64 x i8] zeroinitializer, align 64
; SLOW-LABEL: define spir_kernel void @__vecz_v4_pick(
; SLOW: %[[M:.+]] = icmp ult <4 x i32> %{{.+}}, splat (i32 128)
; SLOW: %[[P:.+]] = select <4 x i1> %[[M]], <4 x ptr addrspace(1)> %{{.+}}, <4 x ptr addrspace(1)> <ptr addrspace(1) @__vecz_b_safe_slot_p1, {{.+}}>
; SLOW-NEXT: call <4 x float> @llvm.masked.gather.v4f32.v4p1(<4 x ptr addrspace(1)> align 4 %[[P]], <4 x i1> splat (i1 true), <4 x float> poison)

; FAST-NOT: __vecz_b_safe_slot
; FAST-LABEL: define spir_kernel void @__vecz_v4_pick(
; FAST: %[[M:.+]] = icmp ult <4 x i32> %{{.+}}, splat (i32 128)
; FAST: call <4 x float> @llvm.masked.gather.v4f32.v4p1(<4 x ptr addrspace(1)> align 4 %{{.+}}, <4 x i1> %[[M]], <4 x float> poison)

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @pick(ptr addrspace(1) %out, ptr addrspace(1) %key, ptr addrspace(1) %x) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kp = getelementptr inbounds i32, ptr addrspace(1) %key, i64 %gid
  %k = load i32, ptr addrspace(1) %kp, align 4
  %c = icmp ult i32 %k, 128
  br i1 %c, label %then, label %end
then:
  %half = lshr i32 %k, 1
  %hi = lshr i32 %k, 7
  %far = mul i32 %hi, 100000000
  %j = add i32 %half, %far
  %je = zext i32 %j to i64
  %xp = getelementptr inbounds float, ptr addrspace(1) %x, i64 %je
  %a = load float, ptr addrspace(1) %xp, align 4
  %xp7 = getelementptr inbounds float, ptr addrspace(1) %xp, i64 7
  %b = load float, ptr addrspace(1) %xp7, align 4
  %s = fadd float %a, %b
  br label %end
end:
  %r = phi float [ %s, %then ], [ 0.0, %entry ]
  %op = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %r, ptr addrspace(1) %op, align 4
  ret void
}
