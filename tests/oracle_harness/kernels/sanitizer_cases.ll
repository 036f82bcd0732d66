; Kernels for tests/oracle_harness/test_sanitizer.py, one behaviour each.
@table = internal constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@lds = internal addrspace(3) global [16 x i32] undef, align 4

declare i64 @_Z13get_global_idj(i32 noundef)
declare i64 @_Z12get_local_idj(i32 noundef)
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)

; Every work-item stores the same value to out[0]: a uniform write, which
; neither Oclgrind nor the oracle reports.
define spir_kernel void @uniform_store(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 7, ptr addrspace(1) %o, align 4
  store i32 42, ptr addrspace(1) %out, align 4
  ret void
}

; The same with different values: a race.
define spir_kernel void @differing_store(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %v = trunc i64 %gid to i32
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

; An atomic counter: no race.
define spir_kernel void @atomic_counter(ptr addrspace(1) %counter, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %old = atomicrmw add ptr addrspace(1) %counter, i32 1 seq_cst, align 4
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 1, ptr addrspace(1) %o, align 4
  ret void
}

; An atomic and a plain update of one counter: a race.
define spir_kernel void @mixed_counter(ptr addrspace(1) %counter) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %odd = and i64 %gid, 1
  %even = icmp eq i64 %odd, 0
  br i1 %even, label %atomic, label %plain
atomic:
  %old = atomicrmw add ptr addrspace(1) %counter, i32 1 seq_cst, align 4
  br label %done
plain:
  %c = load i32, ptr addrspace(1) %counter, align 4
  br label %done
done:
  ret void
}

; Work-items write neighbouring bytes: no race (byte-exact shadows).
define spir_kernel void @byte_neighbours(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %o = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %gid
  %v = trunc i64 %gid to i8
  store i8 %v, ptr addrspace(1) %o, align 1
  ret void
}

; A private array indexed by the work-item id: out of bounds for id >= 4.
define spir_kernel void @private_overflow(ptr addrspace(1) %out) {
entry:
  %a = alloca [4 x i32], align 4
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %p = getelementptr inbounds [4 x i32], ptr %a, i64 0, i64 %gid
  store i32 1, ptr %p, align 4
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 2, ptr addrspace(1) %o, align 4
  ret void
}

; A constant table read past its end by work-items 4 and up.
define spir_kernel void @table_overread(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %p = getelementptr inbounds [4 x i32], ptr @table, i64 0, i64 %gid
  %v = load i32, ptr %p, align 4
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %v, ptr addrspace(1) %o, align 4
  ret void
}

; Local memory: each work-item its own slot, and every work-group its own
; copy of it. No race, although work-items of different groups use the
; same addresses.
define spir_kernel void @local_slots(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %lid = call i64 @_Z12get_local_idj(i32 noundef 0)
  %l = getelementptr inbounds [16 x i32], ptr addrspace(3) @lds, i64 0, i64 %lid
  %v = trunc i64 %gid to i32
  store i32 %v, ptr addrspace(3) %l, align 4
  %w = load i32, ptr addrspace(3) %l, align 4
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %w, ptr addrspace(1) %o, align 4
  ret void
}

; Local memory slot 0 written by every work-item of a group: a race.
define spir_kernel void @local_shared(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %v = trunc i64 %gid to i32
  store i32 %v, ptr addrspace(3) @lds, align 4
  ret void
}

; Global memory written by one work-item of each group at the same place:
; work-groups are not ordered, a race across groups.
define spir_kernel void @cross_group(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 noundef 0)
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %first = icmp eq i64 %lid, 0
  br i1 %first, label %write, label %done
write:
  %v = trunc i64 %gid to i32
  store i32 %v, ptr addrspace(1) %out, align 4
  br label %done
done:
  ret void
}

; memset one element further on: past the end for the last work-item.
define spir_kernel void @memset_overflow(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %next = add i64 %gid, 1
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %next
  call void @llvm.memset.p1.i64(ptr addrspace(1) %o, i8 0, i64 4, i1 false)
  ret void
}

; A helper (not inlined) writes through a pointer it got as an argument:
; its object is found by address; gid - 1 underruns at work-item 0.
define void @put(ptr addrspace(1) %p, i64 %i, i32 %v) noinline {
entry:
  %q = getelementptr inbounds i32, ptr addrspace(1) %p, i64 %i
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @helper_underrun(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %m = add i64 %gid, -1
  call void @put(ptr addrspace(1) %out, i64 %m, i32 1)
  ret void
}

; The address goes through ptrtoint/inttoptr arithmetic: still based on
; %out, so the store one element past its end is out of bounds even if it
; lands inside %in.
define spir_kernel void @int_pointer(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %base = ptrtoint ptr addrspace(1) %out to i64
  %off = shl i64 %gid, 2
  %addr = add i64 %base, %off
  %p = inttoptr i64 %addr to ptr addrspace(1)
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
