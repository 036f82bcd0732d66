; A uniform branch inside a divergent region stays a branch: control-flow
; conversion linearizes the varying `%c` (both sides run, results blended
; by a select on the condition packet) but keeps `br i1 %u` on the kernel
; argument, and masks the store behind it with the condition packet.
; RUN: %veczc -k region -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_region(
; CHECK: %[[C:.+]] = icmp sgt <4 x i32> %{{.+}}, zeroinitializer
; CHECK: %[[U:.+]] = icmp sgt i32 %n, 4
; CHECK-NEXT: br i1 %[[U]], label %logged, label %end
; CHECK: logged:
; CHECK: call void @llvm.masked.store.v4i32.p1(<4 x i32> %{{.+}}, ptr addrspace(1) align 4 %{{.+}}, <4 x i1> %[[C]])
; CHECK: end:
; CHECK: select <4 x i1> %[[C]], <4 x i32>
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @region(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %log, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %else

then:
  %t = mul i32 %x, 3
  %u = icmp sgt i32 %n, 4
  br i1 %u, label %logged, label %end

logged:
  %plog = getelementptr inbounds i32, ptr addrspace(1) %log, i64 %gid
  store i32 %x, ptr addrspace(1) %plog, align 4
  br label %end

else:
  %e = sub i32 0, %x
  br label %end

end:
  %r = phi i32 [ %t, %then ], [ %t, %logged ], [ %e, %else ]
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %pout, align 4
  ret void
}
