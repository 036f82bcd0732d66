"""The LLVM IR of the image builtins' shared internal functions (the
runtime's; images.py defines the builtins on them): fetching a texel in any
supported format, storing one, and reading with a sampler (OpenCL 1.2
section 8.2) with integer or float coordinates. Image objects are laid out
as images.py describes."""

from __future__ import annotations

from .images import (
    CHANNEL_TYPES,
    CLAMP,
    CLAMP_TO_EDGE,
    FILTER_LINEAR,
    MIRRORED_REPEAT,
    NO_ALPHA,
    ORDERS,
    READ_SWIZZLE,
    REPEAT,
    WRITE_SWIZZLE,
)


def _equals_one_of(var: str, values: list[int], prefix: str, joined: str) -> tuple[list[str], str]:
    """Lines testing whether i32 `var` is one of `values`, and the i1 that
    holds the answer: comparison i is `{prefix}{i}`, the running `or`
    `{joined}{i}`."""
    out, cond = [], ""
    for i, v in enumerate(values):
        out.append(f"  {prefix}{i} = icmp eq i32 {var}, {v}")
        if cond:
            out.append(f"  {joined}{i} = or i1 {cond}, {prefix}{i}")
            cond = f"{joined}{i}"
        else:
            cond = f"{prefix}{i}"
    return out, cond


def _order_test(name: str, orders: tuple[str, ...]) -> list[str]:
    """`%{name}` = the image's channel order (`%order`) is one of `orders`."""
    out, cond = _equals_one_of("%order", [ORDERS[o][0] for o in orders], f"%{name}.", f"%{name}.or")
    out.append(f"  %{name} = select i1 {cond}, i1 true, i1 false")
    return out


def _by_order(name: str, a: str, b: str, masks: dict[str, tuple[int, ...]]) -> list[str]:
    """`%{name}` = `shufflevector a, b` with the image's order's mask (the first order's by default)."""
    out, cur = [], ""
    for o, mask in masks.items():
        m = ", ".join(f"i32 {i}" for i in mask)
        out.append(f"  %{name}.{o} = shufflevector <4 x i32> {a}, <4 x i32> {b}, <4 x i32> <{m}>")
        if not cur:
            cur = f"%{name}.{o}"
            continue
        out.append(f"  %{name}.is.{o} = icmp eq i32 %order, {ORDERS[o][0]}")
        out.append(f"  %{name}.sel.{o} = select i1 %{name}.is.{o}, <4 x i32> %{name}.{o}, <4 x i32> {cur}")
        cur = f"%{name}.sel.{o}"
    out.append(f"  %{name} = select i1 true, <4 x i32> {cur}, <4 x i32> {cur}")
    return out


def _pick(lines: list[str], p: str, choices: list[tuple[list[str], str]], default: str, out: str, ty: str) -> None:
    """`%{p}.{out}` = the value of the first entry naming the image's data type (`%dt`), else `default`."""
    t = {k: v[0] for k, v in CHANNEL_TYPES.items()}
    cur = default
    for n, (names, val) in enumerate(reversed(choices)):
        tests, cond = _equals_one_of("%dt", [t[tn] for tn in names], f"%{p}.{out}.k{n}.", f"%{p}.{out}.or{n}.")
        lines += tests
        name = f"%{p}.{out}" if n == len(choices) - 1 else f"%{p}.{out}.s{n}"
        lines.append(f"  {name} = select i1 {cond}, {ty} {val}, {ty} {cur}")
        cur = name


def _header_and_bounds() -> list[str]:
    """Loads of the image header's fields (`%w`, `%h`, `%d`, `%order`, `%dt`,
    `%nch`, `%chb`) and `%in`: whether pixel (`%x`, `%y`, `%z`) is inside."""
    lines: list[str] = []
    for k, f in enumerate(("w", "h", "d", "order", "dt", "nch", "chb")):
        lines += [f"  %{f}.p = getelementptr i8, ptr addrspace(1) %img, i64 {4 * k}",
                  f"  %{f} = load i32, ptr addrspace(1) %{f}.p, align 4"]
    return lines + [
        "  %xin = icmp ult i32 %x, %w", "  %yin = icmp ult i32 %y, %h", "  %zin = icmp ult i32 %z, %d",
        "  %xy = and i1 %xin, %yin", "  %in = and i1 %xy, %zin",
    ]


def _texel_fn() -> str:
    """`<4 x i32> @__img_texel(img, x, y, z, i1 asfloat)`: one pixel's
    channels, as float bits (asfloat) or integers; the border colour outside."""
    lines = [
        "define internal <4 x i32> @__img_texel(ptr addrspace(1) %img, i32 %x, i32 %y, i32 %z, i1 %asf) {",
        "entry:",
    ]
    lines += _header_and_bounds()
    lines += [
        "  %one = select i1 %asf, i32 1065353216, i32 1",
        *_order_test("noalpha", NO_ALPHA),
        "  br i1 %in, label %inside, label %border",
        "border:",
        "  %ba = select i1 %noalpha, i32 %one, i32 0",
        "  %bv = insertelement <4 x i32> zeroinitializer, i32 %ba, i64 3",
        "  ret <4 x i32> %bv",
        "inside:",
        "  %zh = mul i32 %z, %h", "  %zy = add i32 %zh, %y", "  %zw = mul i32 %zy, %w", "  %lin = add i32 %zw, %x",
        "  %lin64 = zext i32 %lin to i64", "  %pb = mul i32 %nch, %chb", "  %pb64 = zext i32 %pb to i64",
        "  %off = mul i64 %lin64, %pb64", "  %off2 = add i64 %off, 32",
        "  %px = getelementptr i8, ptr addrspace(1) %img, i64 %off2",
        "  %chb64 = zext i32 %chb to i64",
    ]
    vec = "zeroinitializer"
    for c in range(4):
        p = f"c{c}"
        lines += [
            f"  %{p}.o = mul i64 %chb64, {c}",
            f"  %{p}.p = getelementptr i8, ptr addrspace(1) %px, i64 %{p}.o",
            f"  %{p}.b8 = load i8, ptr addrspace(1) %{p}.p, align 1",
            f"  %{p}.b16 = load i16, ptr addrspace(1) %{p}.p, align 1",
            f"  %{p}.b32 = load i32, ptr addrspace(1) %{p}.p, align 1",
            f"  %{p}.s8 = sext i8 %{p}.b8 to i32", f"  %{p}.u8 = zext i8 %{p}.b8 to i32",
            f"  %{p}.s16 = sext i16 %{p}.b16 to i32", f"  %{p}.u16 = zext i16 %{p}.b16 to i32",
        ]

        # Integer value of the channel.
        _pick(lines, p, [(["sint8", "snorm8"], f"%{p}.s8"), (["uint8", "unorm8"], f"%{p}.u8"),
              (["sint16", "snorm16"], f"%{p}.s16"), (["uint16", "unorm16", "half"], f"%{p}.u16")],
             f"%{p}.b32", "raw", "i32")
        lines += [
            f"  %{p}.fs = sitofp i32 %{p}.raw to float", f"  %{p}.fu = uitofp i32 %{p}.raw to float",
            f"  %{p}.sn8d = fdiv float %{p}.fs, 127.0", f"  %{p}.sn8 = call float @llvm.maxnum.f32(float %{p}.sn8d, float -1.0)",
            f"  %{p}.sn16d = fdiv float %{p}.fs, 32767.0",
            f"  %{p}.sn16 = call float @llvm.maxnum.f32(float %{p}.sn16d, float -1.0)",
            f"  %{p}.un8 = fdiv float %{p}.fu, 255.0", f"  %{p}.un16 = fdiv float %{p}.fu, 65535.0",
            f"  %{p}.h = bitcast i16 %{p}.b16 to half", f"  %{p}.hf = fpext half %{p}.h to float",
            f"  %{p}.ff = bitcast i32 %{p}.b32 to float",
        ]
        _pick(lines, p, [(["snorm8"], f"%{p}.sn8"), (["snorm16"], f"%{p}.sn16"), (["unorm8"], f"%{p}.un8"),
              (["unorm16"], f"%{p}.un16"), (["half"], f"%{p}.hf"), (["float"], f"%{p}.ff"),
              (["uint8", "uint16", "uint32"], f"%{p}.fu")], f"%{p}.fs", "flt", "float")
        lines += [
            f"  %{p}.fb = bitcast float %{p}.flt to i32",
            f"  %{p}.v = select i1 %asf, i32 %{p}.fb, i32 %{p}.raw",
            f"  %vec{c} = insertelement <4 x i32> {vec}, i32 %{p}.v, i64 {c}",
        ]
        vec = f"%vec{c}"
    lines += [
        # Stored channels to (r, g, b, a): lanes 4 and 5 of the second operand are 0 and 1.
        "  %fill = insertelement <4 x i32> zeroinitializer, i32 %one, i64 1",
        *_by_order("r", "%vec3", "%fill", READ_SWIZZLE),
        "  ret <4 x i32> %r", "}",
    ]
    return "\n".join(lines)


def _store_fn() -> str:
    """`void @__img_store(img, x, y, z, <4 x i32> colour, i1 isfloat)`:
    converts a colour (float bits or integers) to the image's format, as
    `write_image{f,i,ui}` do (saturating, rounding to nearest even), and
    stores it; a pixel outside the image is not written."""
    t = {k: v[0] for k, v in CHANNEL_TYPES.items()}
    lines = [
        "define internal void @__img_store(ptr addrspace(1) %img, i32 %x, i32 %y, i32 %z, <4 x i32> %col0, i1 %isf) {",
        "entry:",
    ]
    lines += _header_and_bounds()
    lines += [
        "  br i1 %in, label %inside, label %done",
        "inside:",
        # (r, g, b, a) to the stored channels.
        *_by_order("col", "%col0", "zeroinitializer", WRITE_SWIZZLE),
        "  %zh = mul i32 %z, %h", "  %zy = add i32 %zh, %y", "  %zw = mul i32 %zy, %w", "  %lin = add i32 %zw, %x",
        "  %lin64 = zext i32 %lin to i64", "  %pb = mul i32 %nch, %chb", "  %pb64 = zext i32 %pb to i64",
        "  %off = mul i64 %lin64, %pb64", "  %off2 = add i64 %off, 32",
        "  %px = getelementptr i8, ptr addrspace(1) %img, i64 %off2",
        "  %chb64 = zext i32 %chb to i64",
        f"  %is.sn8 = icmp eq i32 %dt, {t['snorm8']}", f"  %is.sn16 = icmp eq i32 %dt, {t['snorm16']}",
        f"  %is.un8 = icmp eq i32 %dt, {t['unorm8']}", f"  %is.un16 = icmp eq i32 %dt, {t['unorm16']}",
        f"  %is.s8 = icmp eq i32 %dt, {t['sint8']}", f"  %is.s16 = icmp eq i32 %dt, {t['sint16']}",
        f"  %is.u8 = icmp eq i32 %dt, {t['uint8']}", f"  %is.u16 = icmp eq i32 %dt, {t['uint16']}",
        f"  %is.u32 = icmp eq i32 %dt, {t['uint32']}", f"  %is.h = icmp eq i32 %dt, {t['half']}",
        f"  %is.f = icmp eq i32 %dt, {t['float']}",
        "  %is.u8n = or i1 %is.u8, %is.un8", "  %is.u16n = or i1 %is.u16, %is.un16",
        "  %is.s8n = or i1 %is.s8, %is.sn8", "  %is.s16n = or i1 %is.s16, %is.sn16",
        "  %is.uint = or i1 %is.u8, %is.u16", "  %is.uint2 = or i1 %is.uint, %is.u32",
    ]
    for c in range(4):
        p = f"c{c}"
        lines += [
            f"  %{p}.v = extractelement <4 x i32> %col, i64 {c}",
            f"  %{p}.f0 = bitcast i32 %{p}.v to float",
            # Integers written to a float or normalized format: their value.
            f"  %{p}.ivf = sitofp i32 %{p}.v to float", f"  %{p}.uvf = uitofp i32 %{p}.v to float",
            f"  %{p}.ivf2 = select i1 %is.uint2, float %{p}.uvf, float %{p}.ivf",
            f"  %{p}.f = select i1 %isf, float %{p}.f0, float %{p}.ivf2",
            f"  %{p}.m255 = fmul float %{p}.f, 255.0", f"  %{p}.r255 = call float @llvm.roundeven.f32(float %{p}.m255)",
            f"  %{p}.m127 = fmul float %{p}.f, 127.0", f"  %{p}.r127 = call float @llvm.roundeven.f32(float %{p}.m127)",
            f"  %{p}.m65535 = fmul float %{p}.f, 65535.0",
            f"  %{p}.r65535 = call float @llvm.roundeven.f32(float %{p}.m65535)",
            f"  %{p}.m32767 = fmul float %{p}.f, 32767.0",
            f"  %{p}.r32767 = call float @llvm.roundeven.f32(float %{p}.m32767)",
            f"  %{p}.rf = call float @llvm.roundeven.f32(float %{p}.f)",
            f"  %{p}.un8 = call i8 @llvm.fptoui.sat.i8.f32(float %{p}.r255)",
            f"  %{p}.sn8 = call i8 @llvm.fptosi.sat.i8.f32(float %{p}.r127)",
            f"  %{p}.un16 = call i16 @llvm.fptoui.sat.i16.f32(float %{p}.r65535)",
            f"  %{p}.sn16 = call i16 @llvm.fptosi.sat.i16.f32(float %{p}.r32767)",
            # Floats written to an integer format (undefined): rounded, saturated.
            f"  %{p}.fi32 = call i32 @llvm.fptosi.sat.i32.f32(float %{p}.rf)",
            f"  %{p}.fu32 = call i32 @llvm.fptoui.sat.i32.f32(float %{p}.rf)",
            f"  %{p}.iu = select i1 %is.uint2, i32 %{p}.fu32, i32 %{p}.fi32",
            f"  %{p}.int = select i1 %isf, i32 %{p}.iu, i32 %{p}.v",
            # convert_{char,short}_sat / convert_{uchar,ushort}_sat of the integer.
            f"  %{p}.smin8 = call i32 @llvm.smax.i32(i32 %{p}.int, i32 -128)",
            f"  %{p}.sc8 = call i32 @llvm.smin.i32(i32 %{p}.smin8, i32 127)",
            f"  %{p}.smin16 = call i32 @llvm.smax.i32(i32 %{p}.int, i32 -32768)",
            f"  %{p}.sc16 = call i32 @llvm.smin.i32(i32 %{p}.smin16, i32 32767)",
            f"  %{p}.uc8 = call i32 @llvm.umin.i32(i32 %{p}.int, i32 255)",
            f"  %{p}.uc16 = call i32 @llvm.umin.i32(i32 %{p}.int, i32 65535)",
            f"  %{p}.i8a = trunc i32 %{p}.sc8 to i8", f"  %{p}.i8b = trunc i32 %{p}.uc8 to i8",
            f"  %{p}.i16a = trunc i32 %{p}.sc16 to i16", f"  %{p}.i16b = trunc i32 %{p}.uc16 to i16",
            f"  %{p}.w8a = select i1 %is.u8, i8 %{p}.i8b, i8 %{p}.i8a",
            f"  %{p}.w8b = select i1 %is.sn8, i8 %{p}.sn8, i8 %{p}.w8a",
            f"  %{p}.w8 = select i1 %is.un8, i8 %{p}.un8, i8 %{p}.w8b",
            f"  %{p}.hh = fptrunc float %{p}.f to half", f"  %{p}.hb = bitcast half %{p}.hh to i16",
            f"  %{p}.w16a = select i1 %is.u16, i16 %{p}.i16b, i16 %{p}.i16a",
            f"  %{p}.w16b = select i1 %is.sn16, i16 %{p}.sn16, i16 %{p}.w16a",
            f"  %{p}.w16c = select i1 %is.un16, i16 %{p}.un16, i16 %{p}.w16b",
            f"  %{p}.w16 = select i1 %is.h, i16 %{p}.hb, i16 %{p}.w16c",
            f"  %{p}.fb = bitcast float %{p}.f to i32",
            f"  %{p}.w32 = select i1 %is.f, i32 %{p}.fb, i32 %{p}.int",
            f"  %{p}.o = mul i64 %chb64, {c}",
            f"  %{p}.p = getelementptr i8, ptr addrspace(1) %px, i64 %{p}.o",
            f"  %{p}.has = icmp ult i32 {c}, %nch",
            f"  br i1 %{p}.has, label %{p}.st, label %done",
            f"{p}.st:",
            f"  switch i32 %chb, label %{p}.s32 [ i32 1, label %{p}.s8\n    i32 2, label %{p}.s16 ]",
            f"{p}.s8:", f"  store i8 %{p}.w8, ptr addrspace(1) %{p}.p, align 1", f"  br label %{p}.next",
            f"{p}.s16:", f"  store i16 %{p}.w16, ptr addrspace(1) %{p}.p, align 1", f"  br label %{p}.next",
            f"{p}.s32:", f"  store i32 %{p}.w32, ptr addrspace(1) %{p}.p, align 1", f"  br label %{p}.next",
            f"{p}.next:",
        ]
    lines += ["  br label %done", "done:", "  ret void", "}"]
    return "\n".join(lines)


def _axis(lines: list[str], a: str, s: str, n: str) -> None:
    """Addressing along one axis of a sampled read: `%{a}.near` (nearest),
    `%{a}.i0`, `%{a}.i1`, `%{a}.f` (linear: indexes and weight of i1), from
    coordinate `s` (float) and size `n` (i32). Uses %norm (i1) and %am (i32)."""
    lines += [
        f"  %{a}.nf = sitofp i32 {n} to float", f"  %{a}.nm1 = sub i32 {n}, 1",
        f"  %{a}.fl = call float @llvm.floor.f32(float {s})", f"  %{a}.sr = fsub float {s}, %{a}.fl",
        f"  %{a}.ur = fmul float %{a}.sr, %{a}.nf",
        f"  %{a}.hs = fmul float {s}, 0.5", f"  %{a}.rh = call float @llvm.rint.f32(float %{a}.hs)",
        f"  %{a}.r2 = fmul float %{a}.rh, 2.0", f"  %{a}.sd = fsub float {s}, %{a}.r2",
        f"  %{a}.sm = call float @llvm.fabs.f32(float %{a}.sd)", f"  %{a}.um = fmul float %{a}.sm, %{a}.nf",
        f"  %{a}.sn = fmul float {s}, %{a}.nf", f"  %{a}.up = select i1 %norm, float %{a}.sn, float {s}",
        f"  %{a}.u1 = select i1 %mir, float %{a}.um, float %{a}.up",
        f"  %{a}.u = select i1 %rep, float %{a}.ur, float %{a}.u1",
        # nearest
        f"  %{a}.uf = call float @llvm.floor.f32(float %{a}.u)",
        f"  %{a}.i = call i32 @llvm.fptosi.sat.i32.f32(float %{a}.uf)",
        f"  %{a}.ibig = icmp sgt i32 %{a}.i, %{a}.nm1", f"  %{a}.iw = sub i32 %{a}.i, {n}",
        f"  %{a}.irep = select i1 %{a}.ibig, i32 %{a}.iw, i32 %{a}.i",
        f"  %{a}.imir = call i32 @llvm.smin.i32(i32 %{a}.i, i32 %{a}.nm1)",
        f"  %{a}.ie0 = call i32 @llvm.smax.i32(i32 %{a}.i, i32 0)",
        f"  %{a}.iedge = call i32 @llvm.smin.i32(i32 %{a}.ie0, i32 %{a}.nm1)",
        f"  %{a}.ic0 = call i32 @llvm.smax.i32(i32 %{a}.i, i32 -1)",
        f"  %{a}.iclamp = call i32 @llvm.smin.i32(i32 %{a}.ic0, i32 {n})",
        f"  %{a}.n1 = select i1 %am.clamp, i32 %{a}.iclamp, i32 %{a}.i",
        f"  %{a}.n2 = select i1 %am.edge, i32 %{a}.iedge, i32 %{a}.n1",
        f"  %{a}.n3 = select i1 %mir, i32 %{a}.imir, i32 %{a}.n2",
        f"  %{a}.near = select i1 %rep, i32 %{a}.irep, i32 %{a}.n3",
        # linear
        f"  %{a}.ul = fsub float %{a}.u, 0.5", f"  %{a}.lf = call float @llvm.floor.f32(float %{a}.ul)",
        f"  %{a}.f = fsub float %{a}.ul, %{a}.lf",
        f"  %{a}.j0 = call i32 @llvm.fptosi.sat.i32.f32(float %{a}.lf)", f"  %{a}.j1 = add i32 %{a}.j0, 1",
        f"  %{a}.j0neg = icmp slt i32 %{a}.j0, 0", f"  %{a}.j0w = add i32 %{a}.j0, {n}",
        f"  %{a}.j0rep = select i1 %{a}.j0neg, i32 %{a}.j0w, i32 %{a}.j0",
        f"  %{a}.j1big = icmp sgt i32 %{a}.j1, %{a}.nm1", f"  %{a}.j1w = sub i32 %{a}.j1, {n}",
        f"  %{a}.j1rep = select i1 %{a}.j1big, i32 %{a}.j1w, i32 %{a}.j1",
        f"  %{a}.j0mir = call i32 @llvm.smax.i32(i32 %{a}.j0, i32 0)",
        f"  %{a}.j1mir = call i32 @llvm.smin.i32(i32 %{a}.j1, i32 %{a}.nm1)",
    ]
    for j in ("j0", "j1"):
        lines += [
            f"  %{a}.{j}e0 = call i32 @llvm.smax.i32(i32 %{a}.{j}, i32 0)",
            f"  %{a}.{j}edge = call i32 @llvm.smin.i32(i32 %{a}.{j}e0, i32 %{a}.nm1)",
            f"  %{a}.{j}c0 = call i32 @llvm.smax.i32(i32 %{a}.{j}, i32 -1)",
            f"  %{a}.{j}clamp = call i32 @llvm.smin.i32(i32 %{a}.{j}c0, i32 {n})",
            f"  %{a}.{j}s1 = select i1 %am.clamp, i32 %{a}.{j}clamp, i32 %{a}.{j}",
            f"  %{a}.{j}s2 = select i1 %am.edge, i32 %{a}.{j}edge, i32 %{a}.{j}s1",
            f"  %{a}.{j}s3 = select i1 %mir, i32 %{a}.{j}mir, i32 %{a}.{j}s2",
            f"  %{a}.{'i0' if j == 'j0' else 'i1'} = select i1 %rep, i32 %{a}.{j}rep, i32 %{a}.{j}s3",
        ]


def _sample_fn() -> str:
    """`<4 x i32> @__img_sample(img, i32 sampler, <4 x float> coord, i1 asfloat)`:
    a read with float coordinates, OpenCL 1.2 section 8.2's addressing and filtering."""
    lines = [
        "define internal <4 x i32> @__img_sample(ptr addrspace(1) %img, i32 %smp, <4 x float> %c, i1 %asf) {",
        "entry:",
    ]
    for k, f in enumerate(("w", "h", "d")):
        lines += [f"  %{f}.p = getelementptr i8, ptr addrspace(1) %img, i64 {4 * k}",
                  f"  %{f} = load i32, ptr addrspace(1) %{f}.p, align 4"]
    lines += [
        "  %dim.p = getelementptr i8, ptr addrspace(1) %img, i64 28", "  %dim = load i32, ptr addrspace(1) %dim.p, align 4",
        "  %nb = and i32 %smp, 1", "  %norm = icmp ne i32 %nb, 0", "  %am = and i32 %smp, 14",
        f"  %am.rep = icmp eq i32 %am, {REPEAT}", f"  %am.mir = icmp eq i32 %am, {MIRRORED_REPEAT}",
        f"  %am.edge = icmp eq i32 %am, {CLAMP_TO_EDGE}", f"  %am.clamp = icmp eq i32 %am, {CLAMP}",
        "  %rep = and i1 %am.rep, %norm", "  %mir = and i1 %am.mir, %norm",
        "  %fb = and i32 %smp, 48", f"  %lin0 = icmp eq i32 %fb, {FILTER_LINEAR}", "  %lin = and i1 %lin0, %asf",
        "  %sx = extractelement <4 x float> %c, i64 0", "  %sy = extractelement <4 x float> %c, i64 1",
        "  %sz = extractelement <4 x float> %c, i64 2",
    ]
    _axis(lines, "x", "%sx", "%w")
    _axis(lines, "y", "%sy", "%h")
    _axis(lines, "z", "%sz", "%d")
    # Axes the image lacks: index 0.
    lines += [
        "  %has.y = icmp uge i32 %dim, 2", "  %has.z = icmp uge i32 %dim, 3",
    ]
    for a, has in (("y", "%has.y"), ("z", "%has.z")):
        for v in ("near", "i0", "i1"):
            lines.append(f"  %{a}.{v}.k = select i1 {has}, i32 %{a}.{v}, i32 0")
    lines += [
        "  br i1 %lin, label %linear, label %nearest",
        "nearest:",
        "  %t = call <4 x i32> @__img_texel(ptr addrspace(1) %img, i32 %x.near, i32 %y.near.k, i32 %z.near.k, i1 %asf)",
        "  ret <4 x i32> %t",
        "linear:",
        "  %ax = fsub float 1.0, %x.f", "  %ay = fsub float 1.0, %y.f", "  %az = fsub float 1.0, %z.f",
    ]
    # T = sum over corners of weights * texel, in the specification's order
    # (i0 before i1, x fastest); 1-D: two texels, 2-D: four, 3-D: eight.
    corners = []
    for zk in ("i0", "i1"):
        for yk in ("i0", "i1"):
            for xk in ("i0", "i1"):
                corners.append((xk, yk, zk))
    for n, (xk, yk, zk) in enumerate(corners):
        wx = "%x.f" if xk == "i1" else "%ax"
        wy = "%y.f" if yk == "i1" else "%ay"
        wz = "%z.f" if zk == "i1" else "%az"
        lines += [
            f"  %t{n}.i = call <4 x i32> @__img_texel(ptr addrspace(1) %img, i32 %x.{xk}, i32 %y.{yk}.k, i32 %z.{zk}.k, i1 true)",
            f"  %t{n} = bitcast <4 x i32> %t{n}.i to <4 x float>",
            f"  %w{n}.xy = fmul float {wx}, {wy}", f"  %w{n}.xyz = fmul float %w{n}.xy, {wz}",
            f"  %w{n}.x = fmul float {wx}, 1.0",
        ]
        for tag, wv in (("1", f"%w{n}.x"), ("2", f"%w{n}.xy"), ("3", f"%w{n}.xyz")):
            lines += [f"  %w{n}.s{tag}.i = insertelement <4 x float> poison, float {wv}, i64 0",
                      f"  %w{n}.s{tag} = shufflevector <4 x float> %w{n}.s{tag}.i, <4 x float> poison, <4 x i32> zeroinitializer",
                      f"  %p{n}.{tag} = fmul <4 x float> %w{n}.s{tag}, %t{n}"]
    # Sums per dimension (a 2-D image must not add the z = i1 corners: 0 * inf is NaN).
    for tag, count in (("1", 2), ("2", 4), ("3", 8)):
        acc = f"%p0.{tag}"
        for n in range(1, count):
            lines.append(f"  %sum{tag}.{n} = fadd <4 x float> {acc}, %p{n}.{tag}")
            acc = f"%sum{tag}.{n}"
        lines.append(f"  %res{tag} = bitcast <4 x float> {acc} to <4 x i32>")
    lines += [
        "  %r12 = select i1 %has.y, <4 x i32> %res2, <4 x i32> %res1",
        "  %r = select i1 %has.z, <4 x i32> %res3, <4 x i32> %r12",
        "  ret <4 x i32> %r", "}",
    ]
    return "\n".join(lines)


def _fetch_fn() -> str:
    """`<4 x i32> @__img_fetch(img, i32 sampler, <4 x i32> coord, i1 asfloat)`:
    a read with integer coordinates (the sampler's addressing mode applied;
    sampler-less reads pass CLK_ADDRESS_NONE)."""
    lines = [
        "define internal <4 x i32> @__img_fetch(ptr addrspace(1) %img, i32 %smp, <4 x i32> %c, i1 %asf) {",
        "entry:",
        "  %am = and i32 %smp, 14", f"  %edge = icmp eq i32 %am, {CLAMP_TO_EDGE}",
        "  %dim.p = getelementptr i8, ptr addrspace(1) %img, i64 28", "  %dim = load i32, ptr addrspace(1) %dim.p, align 4",
    ]
    for k, (a, f) in enumerate((("x", "w"), ("y", "h"), ("z", "d"))):
        lines += [
            f"  %{f}.p = getelementptr i8, ptr addrspace(1) %img, i64 {4 * k}",
            f"  %{f} = load i32, ptr addrspace(1) %{f}.p, align 4", f"  %{f}.m1 = sub i32 %{f}, 1",
            f"  %{a}.c = extractelement <4 x i32> %c, i64 {k}",
            f"  %{a}.e0 = call i32 @llvm.smax.i32(i32 %{a}.c, i32 0)",
            f"  %{a}.e = call i32 @llvm.smin.i32(i32 %{a}.e0, i32 %{f}.m1)",
            f"  %{a}.s = select i1 %edge, i32 %{a}.e, i32 %{a}.c",
            f"  %{a}.has = icmp ugt i32 %dim, {k}",
            f"  %{a} = select i1 %{a}.has, i32 %{a}.s, i32 0",
        ]
    lines += ["  %t = call <4 x i32> @__img_texel(ptr addrspace(1) %img, i32 %x, i32 %y, i32 %z, i1 %asf)",
              "  ret <4 x i32> %t", "}"]
    return "\n".join(lines)


INTRINSICS = {
    "llvm.maxnum.f32": ("float", ["float", "float"]), "llvm.floor.f32": ("float", ["float"]),
    "llvm.rint.f32": ("float", ["float"]), "llvm.fabs.f32": ("float", ["float"]),
    "llvm.roundeven.f32": ("float", ["float"]),
    "llvm.fptosi.sat.i32.f32": ("i32", ["float"]), "llvm.fptoui.sat.i32.f32": ("i32", ["float"]),
    "llvm.fptoui.sat.i8.f32": ("i8", ["float"]), "llvm.fptosi.sat.i8.f32": ("i8", ["float"]),
    "llvm.fptoui.sat.i16.f32": ("i16", ["float"]), "llvm.fptosi.sat.i16.f32": ("i16", ["float"]),
    "llvm.smax.i32": ("i32", ["i32", "i32"]), "llvm.smin.i32": ("i32", ["i32", "i32"]),
    "llvm.umin.i32": ("i32", ["i32", "i32"]),
}
HELPERS = {"__img_texel": _texel_fn, "__img_store": _store_fn, "__img_sample": _sample_fn, "__img_fetch": _fetch_fn}
NEEDS = {"__img_sample": ["__img_texel"], "__img_fetch": ["__img_texel"], "__img_texel": [], "__img_store": []}
