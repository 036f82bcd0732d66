; Every vectorization choice (vectorizer/choices.py), and what it does to the
; vectorized kernel. Each RUN line turns one choice on; DEFAULT is none.
; RUN: %veczc -S %s -o %t.default.ll
; RUN: FileCheck --check-prefix=DEFAULT %s < %t.default.ll
;
; PacketizeUniform: the uniform `x * 3` is computed as a vector, not broadcast.
; RUN: %veczc -vecz-choices=PacketizeUniform -S %s | FileCheck --check-prefix=PU %s
; PacketizeUniformInLoops: the same, only inside loops (`uni` stays scalar).
; RUN: %veczc -vecz-choices=PacketizeUniformInLoops -S %s | FileCheck --check-prefix=PUL %s
; InstantiateCallsInLoops: sqrt in a loop runs once per lane, not as llvm.sqrt.v4f32.
; RUN: %veczc -vecz-choices=InstantiateCallsInLoops -S %s | FileCheck --check-prefix=ICL %s
; FullScalarization: the uniform <2 x float> multiply is split into elements.
; RUN: %veczc -vecz-choices=FullScalarization -S %s | FileCheck --check-prefix=FS %s
; LinearizeBOSCC: the divergent `div` block gets a uniform copy for whole packets.
; RUN: %veczc -vecz-choices=LinearizeBOSCC -S %s | FileCheck --check-prefix=BOSCC %s
; VectorPredication: lanes past the local size are masked off.
; RUN: %veczc -vecz-choices=VectorPredication -S %s | FileCheck --check-prefix=VP %s
; DivisionExceptions: always satisfied: a masked division's divisor is
; replaced by 1 in inactive lanes (select, which instcombine writes as umax
; here), with the choice on or off; the division itself is one per lane (x86
; has no vector integer division: packetizer `_splits_division`).
; RUN: %veczc -vecz-choices=DivisionExceptions -S %s | FileCheck --check-prefix=DIV %s
; RUN: %veczc -vecz-choices=noDivisionExceptions -S %s | FileCheck --check-prefix=DIV %s
; TargetIndependentPacketization: satisfied, no effect: the packetizer only
; emits target-independent IR; the output is the same byte for byte.
; RUN: %veczc -vecz-choices=TargetIndependentPacketization -S %s -o %t.tip.ll
; RUN: diff %t.default.ll %t.tip.ll
; An unknown choice is a usage error.
; RUN: not %veczc -vecz-choices=Bogus -S %s 2>&1 | FileCheck --check-prefix=BAD %s

; DEFAULT-LABEL: define spir_kernel void @__vecz_v4_uni(
; DEFAULT:         %u = fmul float %x, 3.0
; DEFAULT:         shufflevector <4 x float> {{.*}} zeroinitializer
; DEFAULT-LABEL: define spir_kernel void @__vecz_v4_loopsqrt(
; DEFAULT:         call <4 x float> @llvm.sqrt.v4f32(
; DEFAULT-LABEL: define spir_kernel void @__vecz_v4_vec(
; DEFAULT:         %m = fmul <2 x float> %s, %s
; DEFAULT-LABEL: define spir_kernel void @__vecz_v4_divide(
; DEFAULT-NOT:     boscc
; DEFAULT:         ret void

; PU-LABEL: define spir_kernel void @__vecz_v4_uni(
; PU:         fmul <4 x float> %{{.*}}, <float 3.0
; PU-LABEL: define spir_kernel void @__vecz_v4_loopsqrt(
; PU:         fmul <4 x float>

; PUL-LABEL: define spir_kernel void @__vecz_v4_uni(
; PUL:         %u = fmul float %x, 3.0
; PUL-LABEL: define spir_kernel void @__vecz_v4_loopsqrt(
; PUL:         fmul <4 x float>

; The library body of sqrt (llvm.sqrt) is inlined first, then instantiated per lane.
; ICL-LABEL: define spir_kernel void @__vecz_v4_loopsqrt(
; ICL-NOT:     llvm.sqrt.v4f32
; ICL:         call float @llvm.sqrt.f32(float %a.l1)
; ICL:         call float @llvm.sqrt.f32(float %a.l2)
; ICL:         call float @llvm.sqrt.f32(float %a.l3)

; FS-LABEL: define spir_kernel void @__vecz_v4_vec(
; FS-NOT:     fmul <2 x float>
; FS:         %m.s0 = fmul float
; FS:         %m.s1 = fmul float

; BOSCC-LABEL: define spir_kernel void @__vecz_v4_divide(
; BOSCC:         entry.boscc.any:
; BOSCC:       div.uni:
; BOSCC-NEXT:    [[D0:%.*]] = extractelement <4 x i32> %d.v, i64 0
; BOSCC-NEXT:    sdiv i32 100, [[D0]]

; VP-LABEL: define spir_kernel void @__vecz_v4_uni(
; VP:         @_Z14get_local_sizej(i32 0)
; VP:         %vp.mask.v = icmp ult <4 x i64>
; VP:         call void @llvm.masked.store.v4f32.p1(<4 x float> %{{.*}}, ptr addrspace(1) align 4 %p, <4 x i1> %vp.mask.v)

; DIV-LABEL: define spir_kernel void @__vecz_v4_divide(
; DIV:         [[SAFE:%.*]] = call <4 x i32> @llvm.umax.v4i32(<4 x i32> %d.v, <4 x i32> splat (i32 1))
; DIV-NEXT:    [[S0:%.*]] = extractelement <4 x i32> [[SAFE]], i64 0
; DIV-NEXT:    sdiv i32 100, [[S0]]

; BAD: veczc: error: unknown vectorization choice 'Bogus'

declare i64 @_Z13get_global_idj(i32)
declare float @_Z4sqrtf(float)

define spir_kernel void @uni(ptr addrspace(1) %out, ptr addrspace(1) %in, float %x) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %l = load float, ptr addrspace(1) %pi, align 4
  %u = fmul float %x, 3.0
  %v = fadd float %l, %u
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @loopsqrt(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n, float %x) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %x0 = load float, ptr addrspace(1) %pi, align 4
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi float [ %x0, %entry ], [ %s, %loop ]
  %if = sitofp i32 %i to float
  %u = fmul float %if, %x
  %a = fadd float %acc, %u
  %s = call float @_Z4sqrtf(float %a)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %s, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @vec(ptr addrspace(1) %out, ptr addrspace(1) %in, <2 x float> %s) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %l = load float, ptr addrspace(1) %pi, align 4
  %m = fmul <2 x float> %s, %s
  %e0 = extractelement <2 x float> %m, i32 0
  %e1 = extractelement <2 x float> %m, i32 1
  %a = fadd float %l, %e0
  %b = fmul float %a, %e1
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %b, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @divide(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %d = load i32, ptr addrspace(1) %pi, align 4
  %nz = icmp ne i32 %d, 0
  br i1 %nz, label %div, label %done
div:
  %q = sdiv i32 100, %d
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  br label %done
done:
  ret void
}
