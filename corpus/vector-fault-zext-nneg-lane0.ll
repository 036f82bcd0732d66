; vecz-case: 1
; kernel: shift
; args: buf:i32:64:zero buf:i32:64:random scalar:i32:3
; ndrange: global=64 local=16
; ndrange: global=36 local=12
; widths: 1,4,8,16
; dims: 0
; choices: 
; choices: VectorPredication
; choices: LinearizeBOSCC
; seed: 0
; origin: OpenCL C `if (lid >= off) v = in[lid - off]; out[lid] = v;` compiled by clang 22 -O2 (zext nneg under the guard)
; failure: vector-fault width=4 dim=0: lane 0 of the first packet is inactive, its `zext nneg` of lid - off is poison, and the contiguous masked load from lane 0's address went 2^32 elements away (fixed by Lane-Safe Extensions)
source_filename = "k.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

; Function Attrs: convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define dso_local spir_kernel void @shift(ptr addrspace(1) noundef writeonly align 4 captures(none) %0, ptr addrspace(1) noundef readonly align 4 captures(none) %1, i32 noundef %2) local_unnamed_addr #0 !kernel_arg_addr_space !7 !kernel_arg_access_qual !8 !kernel_arg_type !9 !kernel_arg_base_type !9 !kernel_arg_type_qual !10 {
  %4 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #2
  %5 = trunc i64 %4 to i32
  %6 = icmp sgt i32 %2, %5
  br i1 %6, label %12, label %7

7:                                                ; preds = %3
  %8 = sub nsw i32 %5, %2
  %9 = zext nneg i32 %8 to i64
  %10 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %9
  %11 = load i32, ptr addrspace(1) %10, align 4, !tbaa !3
  br label %12

12:                                               ; preds = %7, %3
  %13 = phi i32 [ %11, %7 ], [ 0, %3 ]
  %14 = sext i32 %5 to i64
  %15 = getelementptr inbounds i32, ptr addrspace(1) %0, i64 %14
  store i32 %13, ptr addrspace(1) %15, align 4, !tbaa !3
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind willreturn memory(none)
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

attributes #0 = { convergent mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind willreturn memory(none) "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent nounwind willreturn memory(none) }

!llvm.module.flags = !{!0}
!opencl.ocl.version = !{!1}
!opencl.spir.version = !{!1}
!llvm.ident = !{!2}
!llvm.errno.tbaa = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 1, i32 2}
!2 = !{!"clang version 22.1.8"}
!3 = !{!4, !4, i64 0}
!4 = !{!"int", !5, i64 0}
!5 = !{!"omnipotent char", !6, i64 0}
!6 = !{!"Simple C/C++ TBAA"}
!7 = !{i32 1, i32 1, i32 0}
!8 = !{!"none", !"none", !"none"}
!9 = !{!"int*", !"int*", !"int"}
!10 = !{!"", !"const", !""}

