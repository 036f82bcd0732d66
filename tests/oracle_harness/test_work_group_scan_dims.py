"""Work-group scans and float reductions vectorized along dimension 1 or 2:
a packet passes its lanes to the runtime's group step, which folds in the
reference's order, work-item by work-item in linear order
(docs/subgroups.md). Checked against the reference in 2-D and 3-D groups,
with remainders and partial packets, for integer and float types."""

from __future__ import annotations

from collections import Counter

import oracle


def _kernel() -> str:
    head = [f"  %gid{d} = call i64 @__mux_get_global_id(i32 {d})" for d in range(3)]
    head += [f"  %gsz{d} = call i64 @__mux_get_global_size(i32 {d})" for d in range(3)]
    head += ["  %a = mul i64 %gid2, %gsz1", "  %b = add i64 %a, %gid1", "  %c = mul i64 %b, %gsz0",
             "  %g = add i64 %c, %gid0",
             "  %pi = getelementptr i64, ptr addrspace(1) %in, i64 %g",
             "  %x64 = load i64, ptr addrspace(1) %pi, align 8",
             "  %x32 = trunc i64 %x64 to i32", "  %x16 = trunc i64 %x64 to i16",
             "  %xi = sitofp i16 %x16 to float", "  %xf = fmul float %xi, 0x3FB99999A0000000", "  %xd = sitofp i32 %x32 to double"]
    calls = [("i32", "%x32", "__mux_work_group_scan_inclusive_add_i32"),
             ("i32", "%x32", "__mux_work_group_scan_exclusive_smax_i32"),
             ("i16", "%x16", "__mux_work_group_scan_inclusive_xor_i16"),
             ("i64", "%x64", "__mux_work_group_scan_exclusive_umin_i64"),
             ("float", "%xf", "__mux_work_group_scan_inclusive_fadd_f32"),
             ("float", "%xf", "__mux_work_group_reduce_fadd_f32"),
             ("double", "%xd", "__mux_work_group_scan_exclusive_fmax_f64"),
             ("float", "%xf", "__mux_work_group_reduce_fmin_f32")]
    body, decls = [], ["declare i64 @__mux_get_global_id(i32)", "declare i64 @__mux_get_global_size(i32)"]
    for j, (ty, x, name) in enumerate(calls):
        decls.append(f"declare {ty} @{name}(i32, {ty})")
        widen = {"i64": f"add i64 %r{j}, 0", "float": f"bitcast float %r{j} to i32",
                 "double": f"bitcast double %r{j} to i64"}.get(ty, f"sext {ty} %r{j} to i64")
        body += [f"  %r{j} = call {ty} @{name}(i32 0, {ty} {x})", f"  %v{j} = {widen}",
                 f"  %w{j} = " + (f"zext i32 %v{j} to i64" if ty == "float" else f"add i64 %v{j}, 0"),
                 f"  %i{j} = mul i64 %g, {len(calls)}", f"  %k{j} = add i64 %i{j}, {j}",
                 f"  %p{j} = getelementptr i64, ptr addrspace(1) %out, i64 %k{j}",
                 f"  store i64 %w{j}, ptr addrspace(1) %p{j}, align 8"]
    return ("\n".join(decls) + "\n\ndefine spir_kernel void @scans(ptr addrspace(1) %out, ptr addrspace(1) %in) {\n"
            "entry:\n" + "\n".join(head + body) + "\n  ret void\n}\n")


def test_work_group_scans_and_float_reductions_along_dimensions_1_and_2_match() -> None:
    rep = oracle.check(_kernel(), kernel="scans", widths=[1, 2, 3, 4], dims=[1, 2], choices=["", "VectorPredication"],
                       ndranges=["global=4,6,5 local=2,3,5", "global=3,4,6 local=3,4,3", "global=1,8,6 local=1,8,3"],
                       layout=["buf:i64:1200:zero", "buf:i64:150:random"])
    assert rep.results
    assert Counter(r.status for r in rep.results) == {"match": len(rep.results)}, \
        [(r.width, r.dim, r.choices, r.local_size, r.status, r.detail[:200]) for r in rep.results
         if r.status != "match"][:3]
