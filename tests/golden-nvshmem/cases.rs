// The golden cases of `ptx_sync::nvshmem`: every public function, for every element type it
// takes. Included (`include!`) by this crate's build.rs, which stamps one kernel per case, and
// by tests/tests/nvshmem_ptx.rs, which checks what each kernel calls. Plain data only.
//
// The NVSHMEM side is written here from NVSHMEM 3.4.5's headers, independently of the device
// crate's tables: `nvshmem_<N>_<op>` with `<N>` NVSHMEM's type name, and each function's C
// parameter count (device/nvshmem_defines.h, device/nvshmemx_defines.h). `{T}` in a kernel's
// parameters and body is the Rust type, `{N}` NVSHMEM's name for it and `{A}` its name for
// the arithmetic atomics (add, inc: the `long` ones for `i64`, as 3.4.5 has no `int64` ones).

/// Which element types an operation is stamped for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Types {
    /// Not generic: one kernel.
    One,
    /// `Element`: put / get / p / g / put_signal.
    Rma,
    /// `AtomicElement`: the remote atomics.
    Atomic,
    /// `WaitElement`: wait_until and test.
    Wait,
}

/// (Rust type, NVSHMEM name, NVSHMEM name for add / inc).
pub const RMA_TYPES: &[(&str, &str, &str)] = &[
    ("u8", "uint8", "uint8"),
    ("u16", "uint16", "uint16"),
    ("u32", "uint32", "uint32"),
    ("u64", "uint64", "uint64"),
    ("i8", "int8", "int8"),
    ("i16", "int16", "int16"),
    ("i32", "int32", "int32"),
    ("i64", "int64", "int64"),
    ("f32", "float", "float"),
    ("f64", "double", "double"),
];
pub const ATOMIC_TYPES: &[(&str, &str, &str)] = &[
    ("u32", "uint32", "uint32"),
    ("u64", "uint64", "uint64"),
    ("i32", "int32", "int32"),
    ("i64", "int64", "long"),
];
// 3.4.5 has the 16-bit waits only under C's names.
pub const WAIT_TYPES: &[(&str, &str, &str)] = &[
    ("u16", "ushort", "ushort"),
    ("i16", "short", "short"),
    ("u32", "uint32", "uint32"),
    ("i32", "int32", "int32"),
    ("u64", "uint64", "uint64"),
    ("i64", "int64", "int64"),
];

/// One public function: its kernel (parameters, body) and the NVSHMEM functions it must call,
/// in order: (symbol pattern, C parameter count, returns a value).
pub struct Op {
    pub name: &'static str,
    pub types: Types,
    pub params: &'static str,
    pub body: &'static str,
    pub calls: &'static [(&'static str, usize, bool)],
}

const PUT: &str = "dest: Symmetric<{T}>, src: *const {T}, n: usize, pe: u32";
const GET: &str = "dest: *mut {T}, src: Symmetric<{T}>, n: usize, pe: u32";
const PUT_SIGNAL: &str =
    "dest: Symmetric<{T}>, src: *const {T}, n: usize, sig: Symmetric<u64>, v: u64, pe: u32";
const AMO: &str = "dest: Symmetric<{T}>, v: {T}, pe: u32";
const FETCHING_AMO: &str = "dest: Symmetric<{T}>, v: {T}, pe: u32, out: *mut {T}";
const WAIT_ALL: &str = "ivars: Symmetric<{T}>, n: usize, status: *const i32, v: {T}";
const WAIT_ANY: &str =
    "ivars: Symmetric<{T}>, n: usize, status: *const i32, v: {T}, out: *mut usize";

macro_rules! op {
    ($name:literal, $types:ident, $params:expr, $body:literal, [$(($sym:literal, $n:literal, $ret:literal)),+]) => {
        Op { name: $name, types: Types::$types, params: $params, body: $body, calls: &[$(($sym, $n, $ret)),+] }
    };
}

pub fn ops() -> Vec<Op> {
    vec![
        // nvshmem.rs, team.rs, symmetric.rs
        op!("my_pe", One, "out: *mut u32", "*out = my_pe();", [("nvshmem_my_pe", 0, true)]),
        op!("n_pes", One, "out: *mut u32", "*out = n_pes();", [("nvshmem_n_pes", 0, true)]),
        op!("team_my_pe", One, "out: *mut u32", "*out = Team::NODE.my_pe();",
            [("nvshmem_team_my_pe", 1, true)]),
        op!("team_n_pes", One, "out: *mut u32", "*out = Team::SHARED.n_pes();",
            [("nvshmem_team_n_pes", 1, true)]),
        // `ptr` checks `pe < n_pes()` first: NVSHMEM indexes its peer table unchecked.
        op!("symmetric_ptr", One, "s: Symmetric<u64>, pe: u32, out: *mut *mut u64",
            "*out = s.ptr(pe).unwrap_or(core::ptr::null_mut());",
            [("nvshmem_n_pes", 0, true), ("nvshmem_ptr", 2, true)]),
        // ordering.rs
        op!("fence", One, "", "fence();", [("nvshmem_fence", 0, false)]),
        op!("quiet", One, "", "quiet();", [("nvshmem_quiet", 0, false)]),
        // collective.rs (the team forms return C `int`, always 0: nvshmem_coll_defines.cuh)
        op!("barrier_all", One, "", "barrier_all();", [("nvshmem_barrier_all", 0, false)]),
        op!("barrier_all_warp", One, "", "barrier_all_warp();",
            [("nvshmemx_barrier_all_warp", 0, false)]),
        op!("barrier_all_block", One, "", "barrier_all_block();",
            [("nvshmemx_barrier_all_block", 0, false)]),
        op!("sync_all", One, "", "sync_all();", [("nvshmem_sync_all", 0, false)]),
        op!("sync_all_warp", One, "", "sync_all_warp();", [("nvshmemx_sync_all_warp", 0, false)]),
        op!("sync_all_block", One, "", "sync_all_block();",
            [("nvshmemx_sync_all_block", 0, false)]),
        op!("barrier", One, "", "barrier(Team::WORLD);", [("nvshmem_barrier", 1, true)]),
        op!("barrier_warp", One, "", "barrier_warp(Team::NODE);",
            [("nvshmemx_barrier_warp", 1, true)]),
        op!("barrier_block", One, "", "barrier_block(Team::SHARED);",
            [("nvshmemx_barrier_block", 1, true)]),
        op!("team_sync", One, "", "team_sync(Team::WORLD);", [("nvshmem_team_sync", 1, true)]),
        op!("team_sync_warp", One, "", "team_sync_warp(Team::NODE);",
            [("nvshmemx_team_sync_warp", 1, true)]),
        op!("team_sync_block", One, "", "team_sync_block(Team::SHARED);",
            [("nvshmemx_team_sync_block", 1, true)]),
        // signal.rs (the typed put_signal forms below)
        op!("signal_op", One, "sig: Symmetric<u64>, v: u64, pe: u32",
            "signal_op(sig, v, SignalOp::Add, pe);", [("nvshmemx_signal_op", 4, false)]),
        op!("signal_wait_until", One, "sig: Symmetric<u64>, v: u64, out: *mut u64",
            "*out = signal_wait_until(sig, Cmp::Ge, v);",
            [("nvshmem_signal_wait_until", 3, true)]),
        op!("signal_fetch", One, "sig: Symmetric<u64>, out: *mut u64", "*out = signal_fetch(sig);",
            [("nvshmem_signal_fetch", 1, true)]),
        // rma.rs
        op!("put", Rma, PUT, "put::<{T}>(dest, src, n, pe);", [("nvshmem_{N}_put", 4, false)]),
        op!("put_nbi", Rma, PUT, "put_nbi::<{T}>(dest, src, n, pe);",
            [("nvshmem_{N}_put_nbi", 4, false)]),
        op!("get", Rma, GET, "get::<{T}>(dest, src, n, pe);", [("nvshmem_{N}_get", 4, false)]),
        op!("get_nbi", Rma, GET, "get_nbi::<{T}>(dest, src, n, pe);",
            [("nvshmem_{N}_get_nbi", 4, false)]),
        op!("p", Rma, "dest: Symmetric<{T}>, v: {T}, pe: u32", "p::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_p", 3, false)]),
        op!("g", Rma, "src: Symmetric<{T}>, pe: u32, out: *mut {T}", "*out = g::<{T}>(src, pe);",
            [("nvshmem_{N}_g", 2, true)]),
        op!("put_warp", Rma, PUT, "put_warp::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_put_warp", 4, false)]),
        op!("put_block", Rma, PUT, "put_block::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_put_block", 4, false)]),
        op!("put_nbi_warp", Rma, PUT, "put_nbi_warp::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_put_nbi_warp", 4, false)]),
        op!("put_nbi_block", Rma, PUT, "put_nbi_block::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_put_nbi_block", 4, false)]),
        op!("get_warp", Rma, GET, "get_warp::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_get_warp", 4, false)]),
        op!("get_block", Rma, GET, "get_block::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_get_block", 4, false)]),
        op!("get_nbi_warp", Rma, GET, "get_nbi_warp::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_get_nbi_warp", 4, false)]),
        op!("get_nbi_block", Rma, GET, "get_nbi_block::<{T}>(dest, src, n, pe);",
            [("nvshmemx_{N}_get_nbi_block", 4, false)]),
        op!("put_signal", Rma, PUT_SIGNAL,
            "put_signal::<{T}>(dest, src, n, sig, v, SignalOp::Set, pe);",
            [("nvshmem_{N}_put_signal", 7, false)]),
        op!("put_signal_nbi", Rma, PUT_SIGNAL,
            "put_signal_nbi::<{T}>(dest, src, n, sig, v, SignalOp::Add, pe);",
            [("nvshmem_{N}_put_signal_nbi", 7, false)]),
        op!("put_signal_warp", Rma, PUT_SIGNAL,
            "put_signal_warp::<{T}>(dest, src, n, sig, v, SignalOp::Set, pe);",
            [("nvshmemx_{N}_put_signal_warp", 7, false)]),
        op!("put_signal_block", Rma, PUT_SIGNAL,
            "put_signal_block::<{T}>(dest, src, n, sig, v, SignalOp::Set, pe);",
            [("nvshmemx_{N}_put_signal_block", 7, false)]),
        op!("put_signal_nbi_warp", Rma, PUT_SIGNAL,
            "put_signal_nbi_warp::<{T}>(dest, src, n, sig, v, SignalOp::Add, pe);",
            [("nvshmemx_{N}_put_signal_nbi_warp", 7, false)]),
        op!("put_signal_nbi_block", Rma, PUT_SIGNAL,
            "put_signal_nbi_block::<{T}>(dest, src, n, sig, v, SignalOp::Add, pe);",
            [("nvshmemx_{N}_put_signal_nbi_block", 7, false)]),
        // atomic.rs
        op!("atomic_fetch", Atomic, "src: Symmetric<{T}>, pe: u32, out: *mut {T}",
            "*out = atomic_fetch::<{T}>(src, pe);", [("nvshmem_{N}_atomic_fetch", 2, true)]),
        op!("atomic_set", Atomic, AMO, "atomic_set::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_set", 3, false)]),
        op!("atomic_swap", Atomic, FETCHING_AMO, "*out = atomic_swap::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_swap", 3, true)]),
        op!("atomic_compare_swap", Atomic,
            "dest: Symmetric<{T}>, c: {T}, v: {T}, pe: u32, out: *mut {T}",
            "*out = atomic_compare_swap::<{T}>(dest, c, v, pe);",
            [("nvshmem_{N}_atomic_compare_swap", 4, true)]),
        op!("atomic_fetch_add", Atomic, FETCHING_AMO,
            "*out = atomic_fetch_add::<{T}>(dest, v, pe);",
            [("nvshmem_{A}_atomic_fetch_add", 3, true)]),
        op!("atomic_add", Atomic, AMO, "atomic_add::<{T}>(dest, v, pe);",
            [("nvshmem_{A}_atomic_add", 3, false)]),
        op!("atomic_fetch_inc", Atomic, "dest: Symmetric<{T}>, pe: u32, out: *mut {T}",
            "*out = atomic_fetch_inc::<{T}>(dest, pe);",
            [("nvshmem_{A}_atomic_fetch_inc", 2, true)]),
        op!("atomic_inc", Atomic, "dest: Symmetric<{T}>, pe: u32", "atomic_inc::<{T}>(dest, pe);",
            [("nvshmem_{A}_atomic_inc", 2, false)]),
        op!("atomic_fetch_and", Atomic, FETCHING_AMO,
            "*out = atomic_fetch_and::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_fetch_and", 3, true)]),
        op!("atomic_fetch_or", Atomic, FETCHING_AMO,
            "*out = atomic_fetch_or::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_fetch_or", 3, true)]),
        op!("atomic_fetch_xor", Atomic, FETCHING_AMO,
            "*out = atomic_fetch_xor::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_fetch_xor", 3, true)]),
        op!("atomic_and", Atomic, AMO, "atomic_and::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_and", 3, false)]),
        op!("atomic_or", Atomic, AMO, "atomic_or::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_or", 3, false)]),
        op!("atomic_xor", Atomic, AMO, "atomic_xor::<{T}>(dest, v, pe);",
            [("nvshmem_{N}_atomic_xor", 3, false)]),
        // wait.rs
        op!("wait_until", Wait, "ivar: Symmetric<{T}>, v: {T}",
            "wait_until::<{T}>(ivar, Cmp::Ge, v);", [("nvshmem_{N}_wait_until", 3, false)]),
        op!("wait_until_all", Wait, WAIT_ALL,
            "wait_until_all::<{T}>(ivars, n, status, Cmp::Ne, v);",
            [("nvshmem_{N}_wait_until_all", 5, false)]),
        op!("wait_until_any", Wait, WAIT_ANY,
            "*out = wait_until_any::<{T}>(ivars, n, status, Cmp::Eq, v).unwrap_or(7);",
            [("nvshmem_{N}_wait_until_any", 5, true)]),
        op!("wait_until_some", Wait,
            "ivars: Symmetric<{T}>, n: usize, idx: *mut usize, status: *const i32, v: {T}, out: *mut usize",
            "*out = wait_until_some::<{T}>(ivars, n, idx, status, Cmp::Gt, v);",
            [("nvshmem_{N}_wait_until_some", 6, true)]),
        op!("test", Wait, "ivar: Symmetric<{T}>, v: {T}, out: *mut u32",
            "*out = test::<{T}>(ivar, Cmp::Lt, v) as u32;", [("nvshmem_{N}_test", 3, true)]),
    ]
}

/// One kernel: its name, parameters, body, and the NVSHMEM calls it must make, in order:
/// (symbol, C parameter count, returns a value).
pub struct Case {
    pub kernel: String,
    pub op: &'static str,
    pub params: String,
    pub body: String,
    pub calls: Vec<(String, usize, bool)>,
}

pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for op in ops() {
        let types: &[(&str, &str, &str)] = match op.types {
            Types::One => &[("", "", "")],
            Types::Rma => RMA_TYPES,
            Types::Atomic => ATOMIC_TYPES,
            Types::Wait => WAIT_TYPES,
        };
        for &(t, n, a) in types {
            let fill = |s: &str| s.replace("{T}", t).replace("{N}", n).replace("{A}", a);
            out.push(Case {
                // `k_`: a kernel named like the function would shadow it in the crate.
                kernel: if t.is_empty() {
                    format!("k_{}", op.name)
                } else {
                    format!("k_{}__{t}", op.name)
                },
                op: op.name,
                params: fill(op.params),
                body: fill(op.body),
                calls: op.calls.iter().map(|&(s, k, r)| (fill(s), k, r)).collect(),
            });
        }
    }
    out
}
