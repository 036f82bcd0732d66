/* The sanitized reference's run-time checks (memcheck + racecheck).
 *
 * Compiled once to LLVM IR (oracle/sanitizer_rt.ll, checked in; regenerate
 * with `python -m oracle.sanitizer_rt --regenerate`). Each worker process
 * JIT-compiles it once, optimised, in an engine of its own and publishes its
 * functions as process symbols; the instrumented kernel
 * (oracle/instrument.py) calls `__oracle_san_access`, `__oracle_san_store`,
 * `__oracle_san_masked` and `__oracle_san_mem` before its memory accesses. Python
 * (oracle/sanitizer.py) fills `__oracle_san` (the object table, pointers to
 * the program's hook globals) and reads the report.
 *
 * Objects: the kernel's buffers (table index = argument index), then the
 * module's global variables. Each granule of a buffer or writable global
 * has a shadow cell: its last writer and its reader(s) since, each with the
 * barrier epoch, atomicity and which of the granule's bytes they touched. A
 * conflicting access (another work-item, overlapping bytes, at least one
 * write, not both atomic) in a visible epoch is a race. A granule is 4
 * bytes, or 1 for objects the kernel accesses in units of fewer than 4
 * bytes (oracle/instrument.py decides), so that work-items writing
 * neighbouring bytes keep cells of their own. Private memory (allocas) is
 * bounds checked only. Where two work-items touch different bytes of one
 * granule nonetheless (a misaligned access), the cell keeps the last one.
 *
 * Epochs: the program's `__oracle_san_epoch` increases at every work-group
 * start (the drivers) and whenever a work-group passes a barrier (a barrier
 * implementation's duty); `__oracle_san_group_epoch` is its value at the
 * start of the running group. Groups run one after another, so a cell
 * whose epoch is below the group's start was made by another work-group:
 * for global memory that is a race whatever the barriers (OpenCL does not
 * order work-groups), for local memory it is another group's memory (dead).
 * A cell with the current epoch is in the same barrier interval.
 *
 * The running work-item is the program's `__oracle_san_item` (global
 * linear id + 1), which the sanitized driver sets before each call (an
 * implementation switching work-items, such as fibers, sets it on every
 * switch).
 *
 * The fast mode keeps no instruction ids; when it finds a race, Python runs
 * the kernel again in detail mode (M_DETAIL), which also records, per
 * granule, the instructions and a second reader, to name both accesses.
 *
 * Freestanding: no libc, no headers (the IR must not depend on the host's).
 */

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned char u8;

enum { F_READ = 1, F_WRITE = 2, F_ATOMIC = 4 };
enum { K_NONE = 0, K_GLOBAL = 1, K_LOCAL = 2, K_CONST = 3 };
enum { R_NONE = 0, R_OOB = 1, R_RACE = 2, R_WILD = 3, R_FAR = 4 };
enum { M_PROBE = 1, M_RACES = 2, M_DETAIL = 4 };
enum { OBJ_LOOKUP = -1, OBJ_RANGE = -2 };
#define E_MASK 0x07ffffffu /* epoch bits of a cell's epoch word */
#define E_ATOMIC 0x08000000u
#define E_BYTES 28 /* the granule's bytes touched, 4 bits from here */
#define MANY 0xffffffffu

struct cell {          /* one per 4-byte granule of a tracked object */
  u32 w_item, w_epoch; /* last writer (work-item + 1; 0 none), its epoch word */
  u32 r_item, r_epoch; /* reader (work-item + 1, MANY), the readers' epoch word */
};

struct detail {         /* detail mode, beside each cell */
  u32 w_site, r_site;   /* the writer's and the first reader's instruction */
  u32 r_item;           /* the first reader */
  u32 r2_item, r2_site; /* the reader that made it MANY */
  u32 pad;
};

struct object {
  u64 base, size;        /* bytes [base, base + size) */
  struct cell *cells;    /* 0: bounds only */
  struct detail *detail; /* detail mode */
  u32 kind, growable;    /* K_*; probe mode may record accesses past the end */
  u64 hi;                /* highest byte offset touched + 1 (probe: even past the end) */
  u32 shift, pad;        /* a cell covers 1 << shift bytes: 2, or 0 for objects accessed by bytes */
};

struct report {
  u32 kind, obj;            /* R_*, object index (~0: none) */
  u32 site, flags;          /* the access that failed */
  u64 addr, size;
  u32 item, other_item;     /* work-items + 1 (MANY: several readers) */
  u32 other_site, other_flags;
};

struct san {
  struct object *objects;
  u64 nobjects;
  u32 mode, redirected;     /* M_*; accesses redirected past a buffer's end (probe) */
  struct report rep;
  void *jmp[5];             /* __builtin_setjmp buffer of __oracle_san_run */
  u64 probe_limit;          /* probe mode: the farthest end offset a buffer may grow to */
  /* The program's hook globals (oracle/runtime.py). */
  u64 *item, *epoch, *group_epoch, *stack_hi;
  u64 *bounds; /* the inline checks' (base, limit, cells, -) per object (oracle/instrument.py) */
  u64 run_epoch; /* cells of epochs below are from earlier runs: empty (no clearing needed) */
};

struct san __oracle_san;

/* Accesses redirected in probe mode land here (never inside a buffer). */
static u8 scratch[4096] __attribute__((aligned(64)));

__attribute__((noinline, noreturn)) static void fail(u32 kind, u32 obj, u64 addr, u64 size, u32 site,
                                                     u32 flags, u32 other_item, u32 other_site,
                                                     u32 other_flags) {
  struct report *r = &__oracle_san.rep;
  r->kind = kind;
  r->obj = obj;
  r->addr = addr;
  r->size = size;
  r->site = site;
  r->flags = flags;
  r->item = (u32)*__oracle_san.item;
  r->other_item = other_item;
  r->other_site = other_site;
  r->other_flags = other_flags;
  __builtin_longjmp(__oracle_san.jmp, 1);
}

/* Does a cell's epoch word `e` conflict with an access now? */
static inline int visible(u32 e, u32 kind, u32 now, u32 group, u32 run) {
  e &= E_MASK;
  if (e < run) return 0;                  /* an earlier run's */
  if (e < group) return kind == K_GLOBAL; /* another work-group's */
  return e == now;                        /* same barrier interval */
}

__attribute__((noinline, noreturn)) static void race(u32 oi, struct object *o, u64 g, u32 m, u32 cm,
                                                     u32 site, u32 flags, u32 other, u32 other_flags,
                                                     int reader2) {
  /* The first byte both touched. */
  u32 both = m & cm, b = 0;
  while (!(both & (1u << b))) ++b;
  u32 other_site = ~0u; /* not recorded (fast mode) */
  if (o->detail) {
    struct detail *d = o->detail + g;
    if (!reader2) {
      other_site = (other_flags & F_WRITE) ? d->w_site : d->r_site;
    } else if (d->r2_item != (u32)*__oracle_san.item) {
      other = d->r2_item;
      other_site = d->r2_site;
    } else {
      other = d->r_item;
      other_site = d->r_site;
    }
  }
  fail(R_RACE, oi, o->base + (g << o->shift) + b, 1, site, flags, other, other_site, other_flags);
}

/* Does the store about to write `value` (the bytes for [off, ...)) leave
   the bytes `both` of granule `g` as they are? */
static int same_bytes(const struct object *o, u64 off, u64 g, u32 both, u64 value) {
  const u8 *mem = (const u8 *)(o->base + (g << o->shift)), *val = (const u8 *)value + ((g << o->shift) - off);
  for (u32 b = 0; b < (1u << o->shift); ++b)
    if ((both & (1u << b)) && mem[b] != val[b]) return 0;
  return 1;
}

/* Track one access. `value` (0: unknown) holds the bytes a store writes: a
   write of the very bytes memory already holds does not race with the
   write that put them there (a "uniform write", which Oclgrind does not
   report either), unless the access also reads (F_READ with F_WRITE: a
   store that completes a read of the same bytes, oracle/instrument.py). */
__attribute__((always_inline)) static inline void track(u32 oi, struct object *o, u64 off, u64 size, u32 site,
                                                      u32 flags, u64 value) {
  u32 t = (u32)*__oracle_san.item;
  u32 now = (u32)*__oracle_san.epoch & E_MASK, group = (u32)*__oracle_san.group_epoch & E_MASK;
  u32 run = (u32)__oracle_san.run_epoch;
  u32 atomic = flags & F_ATOMIC ? E_ATOMIC : 0, kind = o->kind;
  int detail = (__oracle_san.mode & M_DETAIL) != 0;
  u64 end = off + size;
  u32 sh = o->shift, gran = 1u << sh;
  int whole = ((off | size) & (gran - 1)) == 0; /* whole granules: the common case */
  for (u64 g = off >> sh; g << sh < end; ++g) {
    u32 m = (1u << gran) - 1; /* this access's bytes of the granule */
    if (!whole) {
      u64 at = g << sh, lo = at < off ? off - at : 0, hi = end - at < gran ? end - at : gran;
      m = ((1u << hi) - 1) & ~((1u << lo) - 1);
    }
    struct cell *c = o->cells + g;
    u32 w = c->w_item, we = c->w_epoch;
    if (w && w != t && ((we >> E_BYTES) & m) && visible(we, kind, now, group, run) && !(atomic && (we & E_ATOMIC))) {
      if (!(value && (flags & (F_READ | F_WRITE | F_ATOMIC)) == F_WRITE &&
            same_bytes(o, off, g, (we >> E_BYTES) & m, value)))
        race(oi, o, g, m, we >> E_BYTES, site, flags, w, F_WRITE | (we & E_ATOMIC ? F_ATOMIC : 0), 0);
    }
    u32 r = c->r_item, re = c->r_epoch, e = re & E_MASK;
    if (flags & F_WRITE) {
      if (r && r != t && ((re >> E_BYTES) & m) && visible(re, kind, now, group, run) && !(atomic && (re & E_ATOMIC))) {
        race(oi, o, g, m, re >> E_BYTES, site, flags, r, F_READ | (re & E_ATOMIC ? F_ATOMIC : 0), r == MANY);
      }
      u32 keep = (w == t && (we & E_MASK) == now) ? (we >> E_BYTES) : 0;
      c->w_item = t;
      c->w_epoch = now | ((keep | m) << E_BYTES) | (keep && !(we & E_ATOMIC) ? 0 : atomic);
      if (detail) o->detail[g].w_site = site;
      /* A store completing a read of its bytes records the read too. */
      if (!(flags & F_READ) || atomic) continue;
    }
    /* A read. A reader of another work-group is kept (any later write of
       another group races with it); one of an earlier interval of this
       group, or a dead one (local memory of another group), is replaced;
       in the same interval a second reader makes the cell MANY. */
    if (r == 0 || e < run || (e < group ? kind != K_GLOBAL || (!atomic && (re & E_ATOMIC)) : e != now)) {
      c->r_item = t;
      c->r_epoch = now | (m << E_BYTES) | atomic;
      if (detail) {
        o->detail[g].r_item = t;
        o->detail[g].r_site = site;
      }
    } else if (e == now) {
      if (r != t && r != MANY) {
        c->r_item = MANY;
        if (detail) {
          o->detail[g].r2_item = t;
          o->detail[g].r2_site = site;
        }
      }
      c->r_epoch = (re | (m << E_BYTES)) & (atomic ? ~0u : ~E_ATOMIC);
    }
  }
}

/* The object holding `addr`, or ~0. */
static u32 lookup(u64 addr) {
  struct object *o = __oracle_san.objects;
  for (u32 i = 0; i < __oracle_san.nobjects; ++i)
    if (o[i].size && addr - o[i].base < o[i].size) return i;
  return ~0u;
}

/* Check one access of `size` bytes at `addr`; the address to use instead
   (the same, or scratch memory in probe mode). `obj` >= 0: the access is
   based on that object; OBJ_RANGE: on private memory [base, end);
   OBJ_LOOKUP: on whatever object holds `addr`. `info` = site << 4 | flags. */
__attribute__((always_inline)) static inline u64 check(u64 addr, u64 size, i64 obj, u64 base, u64 end,
                                                     u64 info, u64 value) {
  u32 site = (u32)(info >> 4), flags = (u32)info & 15;
  if (size == 0) return addr;
  if (obj == OBJ_RANGE) {
    if (addr < base || addr - base > end - base || size > end - addr)
      fail(R_OOB, ~0u, addr, size, site, flags, 0, 0, 0);
    return addr;
  }
  u32 oi = obj >= 0 ? (u32)obj : lookup(addr);
  if (oi == ~0u) {
    /* Not a buffer or global: private memory of the running work-item
       (below the driver's frame, above ours), else a wild pointer. */
    u64 sp = (u64)__builtin_frame_address(0), top = *__oracle_san.stack_hi;
    if (addr >= sp && addr < top && size <= top - addr) return addr;
    fail(R_WILD, ~0u, addr, size, site, flags, 0, 0, 0);
  }
  struct object *o = &__oracle_san.objects[oi];
  u64 off = addr - o->base;
  if (addr < o->base || off > o->size || size > o->size - off) {
    /* Probe mode: a buffer whose size the oracle guessed may be too small;
       record how far the kernel reaches and keep going on scratch memory. */
    if ((__oracle_san.mode & M_PROBE) && o->growable && addr >= o->base && size <= sizeof scratch) {
      if (off > __oracle_san.probe_limit - size) fail(R_FAR, oi, addr, size, site, flags, 0, 0, 0);
      if (off + size > o->hi) o->hi = off + size;
      __oracle_san.redirected++;
      return (u64)scratch;
    }
    fail(R_OOB, oi, addr, size, site, flags, 0, 0, 0);
  }
  if (off + size > o->hi) {
    o->hi = off + size;
    /* Probe mode: let the inline checks pass up to what is known to be used. */
    if ((__oracle_san.mode & (M_PROBE | M_DETAIL)) == M_PROBE) __oracle_san.bounds[4 * oi + 1] = o->hi;
  }
  if (o->cells && (__oracle_san.mode & M_RACES)) track(oi, o, off, size, site, flags, value);
  return addr;
}

u64 __oracle_san_access(u64 addr, u64 size, i64 obj, u64 base, u64 end, u64 info) {
  return check(addr, size, obj, base, end, info, 0);
}

/* A store of `size` bytes whose value sits at `value` (0: unknown); `obj`
   as for __oracle_san_access, never OBJ_RANGE. */
u64 __oracle_san_store(u64 addr, u64 size, i64 obj, u64 value, u64 info) {
  return check(addr, size, obj, 0, 0, info, value);
}

/* A contiguous masked access: lane i (bit i of `mask`) covers `elem` bytes
   at addr + i * elem. Returns the address to use (scratch if any lane was
   redirected). */
u64 __oracle_san_masked(u64 addr, u64 elem, u64 mask, i64 obj, u64 base, u64 end, u64 info) {
  u64 use = addr;
  for (u32 i = 0; mask; ++i, mask >>= 1)
    if ((mask & 1) && __oracle_san_access(addr + i * elem, elem, obj, base, end, info) != addr + i * elem)
      use = (u64)scratch;
  return use;
}

/* memcpy/memmove (src != 0) and memset: the length to use (0 when probe mode
   redirected either side). */
u64 __oracle_san_mem(u64 dst, u64 src, u64 len, i64 dobj, u64 dbase, u64 dend, i64 sobj, u64 sbase,
                     u64 send, u64 info) {
  if (len == 0) return 0;
  u64 keep = len;
  if (len > sizeof scratch) {
    /* Checked as one access: no scratch redirect for long copies. */
    u32 mode = __oracle_san.mode;
    __oracle_san.mode &= ~(u32)M_PROBE;
    if (src) __oracle_san_access(src, len, sobj, sbase, send, (info & ~15ull) | F_READ);
    __oracle_san_access(dst, len, dobj, dbase, dend, (info & ~15ull) | F_WRITE);
    __oracle_san.mode = mode;
    return len;
  }
  if (src && __oracle_san_access(src, len, sobj, sbase, send, (info & ~15ull) | F_READ) != src) keep = 0;
  if (__oracle_san_access(dst, len, dobj, dbase, dend, (info & ~15ull) | F_WRITE) != dst) keep = 0;
  return keep;
}

/* Run a sanitized driver: a failed check returns here (longjmp). Returns 0
   when the driver finished, 1 when a check stopped it. */
int __oracle_san_run(void (*driver)(void *, void *), void *args, void *cfg) {
  *__oracle_san.stack_hi = (u64)__builtin_frame_address(0);
  if (__builtin_setjmp(__oracle_san.jmp)) return 1;
  driver(args, cfg);
  return 0;
}
