; Every even work-item does `counter[0] += 3` without an atomic: the
; updates commute (a reversed-order run gives the same sum), yet two
; work-items race on counter[0]. The vectorized kernel may legitimately do
; the read-modify-write once per packet: the input is at fault.
declare i64 @_Z13get_global_idj(i32 noundef)

define spir_kernel void @counter(ptr addrspace(1) %counter, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  %g32 = trunc i64 %gid to i32
  store i32 %g32, ptr addrspace(1) %o, align 4
  %odd = and i64 %gid, 1
  %even = icmp eq i64 %odd, 0
  br i1 %even, label %add, label %done

add:
  %c = load i32, ptr addrspace(1) %counter, align 4
  %c3 = add i32 %c, 3
  store i32 %c3, ptr addrspace(1) %counter, align 4
  br label %done

done:
  ret void
}
