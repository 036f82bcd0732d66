; BOSCC (LinearizeBOSCC): the divergent branch on `%c` gets a uniform fast
; path. All lanes true (vector.reduce.and of the condition packet, which
; instcombine writes as `bitcast <4 x i1> to i4` == -1) runs the uniform
; copy `then.uni` with its plain, unmasked store; no lane true
; (vector.reduce.or == 0) runs `else.uni`; only the mixed case runs the
; linearized region with the masked store. The copies meet at the blend
; block `end`.
; RUN: %veczc -k region -w 4 -S --vecz-choices=LinearizeBOSCC %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_region(
; CHECK: %[[C:.+]] = icmp sgt <4 x i32> %{{.+}}, zeroinitializer
; CHECK: %[[ALLB:.+]] = bitcast <4 x i1> %[[C]] to i4
; CHECK: %[[ALL:.+]] = icmp eq i4 %[[ALLB]], -1
; CHECK: br i1 %[[ALL]], label %then.uni, label %entry.boscc.any
; CHECK: entry.boscc.any:
; CHECK: %[[ANYB:.+]] = bitcast <4 x i1> %[[C]] to i4
; CHECK: %[[NONE:.+]] = icmp eq i4 %[[ANYB]], 0
; CHECK: br i1 %[[NONE]], label %else.uni, label %then
; CHECK: then:
; CHECK: br i1 %{{.+}}, label %logged, label %else
; CHECK: logged:
; CHECK: call void @llvm.masked.store.v4i32.p1(<4 x i32> %{{.+}}, ptr addrspace(1) align 4 %{{.+}}, <4 x i1> %[[C]])
; CHECK: then.uni:
; CHECK: br i1 %{{.+}}, label %end, label %logged.uni
; CHECK: logged.uni:
; CHECK-NEXT: %{{.+}} = getelementptr
; CHECK-NEXT: store <4 x i32> %{{.+}}, ptr addrspace(1) %{{.+}}, align 4
; CHECK: else.uni:
; CHECK: end:
; CHECK-NEXT: phi <4 x i32>
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
