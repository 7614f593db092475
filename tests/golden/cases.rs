// The golden cases: every public operation x order x scope x type of `ptx_sync`.
// Included (`include!`) by this crate's build.rs, which stamps one kernel per case, and by
// tests/tests/golden_ptx.rs, which derives the instruction each case must emit on its own.
// Plain data only, so both sides read the same list and nothing else.

/// What kind of operation, which decides the orders it accepts and the kernel's body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Load,
    Store,
    Rmw,
    Cas,
    Red,
    Fence,
    CompilerFence,
    VolatileRead,
    VolatileWrite,
    BlockSync,
    MutexLock,
    MutexTryLock,
    /// A primitive's operation at a scope (ticket lock, semaphore, latch, barrier, atomic wait).
    Primitive,
    /// A GPU-only block, grid or cluster operation: no scope, no order.
    Block,
    /// Waiting and warp helpers: no scope, no order.
    Wait,
    /// A read-modify-write that PTX has no instruction for (`fetch_nand`): a compare-exchange
    /// loop, or for `bool` one of two instructions. Compared as an instruction set.
    RmwLoop,
    /// `fetch_update(set_order, fetch_order, f)`: a load, then a compare-exchange loop.
    Update,
    /// `wait(old, order)` of an atomic type or flag: polling loads and `nanosleep`.
    AtomicWait,
    /// `notify_one` / `notify_all`: no-ops (waiters poll).
    Notify,
}

pub struct Op {
    pub name: &'static str,
    pub kind: Kind,
    pub types: &'static [&'static str],
}

pub const SCOPES: [&str; 4] = ["Cta", "Cluster", "Gpu", "Sys"];
pub const ALL: &[&str] = &["u32", "i32", "u64", "i64", "f32", "f64"];
pub const INTS: &[&str] = &["u32", "i32", "u64", "i64", "usize", "isize"];
/// Every type with load, store, swap and compare-exchange (`bool` is `AtomicBool`, `ptr`
/// `AtomicPtr<u32, S>`).
pub const EVERY: &[&str] = &[
    "u32", "i32", "u64", "i64", "usize", "isize", "f32", "f64", "u128", "bool", "ptr",
];
/// Types with `compare_exchange_weak`.
pub const CAS_WEAK: &[&str] = &["u32", "i32", "u64", "i64", "usize", "isize", "bool", "ptr"];
/// Types with `fetch_add` / `fetch_sub` / `red_add`.
pub const ADDS: &[&str] = &["u32", "i32", "u64", "i64", "usize", "isize", "f32", "f64"];
/// Types with `fetch_and/or/xor/nand`.
pub const BITWISE: &[&str] = &["u32", "i32", "u64", "i64", "usize", "isize", "bool"];
/// The types added with `AtomicBool` and `AtomicPtr` (their compare-exchange loops).
pub const WORDS: &[&str] = &["usize", "isize", "bool", "ptr"];
/// Every type with `wait` (`flag` is `AtomicFlag`).
pub const WAITS: &[&str] = &[
    "u32", "i32", "u64", "i64", "usize", "isize", "f32", "f64", "bool", "ptr", "flag",
];
pub const BOOL: &[&str] = &["bool"];
pub const FLAG: &[&str] = &["flag"];
pub const U32: &[&str] = &["u32"];
pub const NONE: &[&str] = &["none"];

pub const OPS: &[Op] = &[
    Op { name: "load", kind: Kind::Load, types: EVERY },
    Op { name: "store", kind: Kind::Store, types: EVERY },
    Op { name: "swap", kind: Kind::Rmw, types: EVERY },
    Op { name: "compare_exchange", kind: Kind::Cas, types: EVERY },
    Op { name: "compare_exchange_weak", kind: Kind::Cas, types: CAS_WEAK },
    Op { name: "fetch_update", kind: Kind::Update, types: WORDS },
    Op { name: "fetch_add", kind: Kind::Rmw, types: ADDS },
    Op { name: "fetch_sub", kind: Kind::Rmw, types: ADDS },
    Op { name: "fetch_and", kind: Kind::Rmw, types: BITWISE },
    Op { name: "fetch_or", kind: Kind::Rmw, types: BITWISE },
    Op { name: "fetch_xor", kind: Kind::Rmw, types: BITWISE },
    Op { name: "fetch_nand", kind: Kind::RmwLoop, types: BITWISE },
    Op { name: "fetch_not", kind: Kind::Rmw, types: BOOL },
    Op { name: "test_and_set", kind: Kind::Rmw, types: FLAG },
    Op { name: "clear", kind: Kind::Store, types: FLAG },
    Op { name: "test", kind: Kind::Load, types: FLAG },
    Op { name: "wait", kind: Kind::AtomicWait, types: WAITS },
    Op { name: "notify_one", kind: Kind::Notify, types: &["u32", "bool", "ptr", "flag"] },
    Op { name: "notify_all", kind: Kind::Notify, types: &["u32", "bool", "ptr", "flag"] },
    Op { name: "fetch_min", kind: Kind::Rmw, types: INTS },
    Op { name: "fetch_max", kind: Kind::Rmw, types: INTS },
    Op { name: "fetch_inc", kind: Kind::Rmw, types: U32 },
    Op { name: "fetch_dec", kind: Kind::Rmw, types: U32 },
    Op { name: "red_add", kind: Kind::Red, types: ADDS },
    Op { name: "red_sub", kind: Kind::Red, types: INTS },
    Op { name: "red_and", kind: Kind::Red, types: INTS },
    Op { name: "red_or", kind: Kind::Red, types: INTS },
    Op { name: "red_xor", kind: Kind::Red, types: INTS },
    Op { name: "red_min", kind: Kind::Red, types: INTS },
    Op { name: "red_max", kind: Kind::Red, types: INTS },
    Op { name: "red_inc", kind: Kind::Red, types: U32 },
    Op { name: "red_dec", kind: Kind::Red, types: U32 },
    Op { name: "fence", kind: Kind::Fence, types: NONE },
    Op { name: "compiler_fence", kind: Kind::CompilerFence, types: NONE },
    Op { name: "read_volatile", kind: Kind::VolatileRead, types: ALL },
    Op { name: "write_volatile", kind: Kind::VolatileWrite, types: ALL },
    Op { name: "read_mmio", kind: Kind::VolatileRead, types: ALL },
    Op { name: "write_mmio", kind: Kind::VolatileWrite, types: ALL },
    Op { name: "block_sync", kind: Kind::BlockSync, types: NONE },
    Op { name: "mutex_lock", kind: Kind::MutexLock, types: U32 },
    Op { name: "mutex_try_lock", kind: Kind::MutexTryLock, types: U32 },
    Op { name: "ticket_lock", kind: Kind::Primitive, types: U32 },
    Op { name: "ticket_try_lock", kind: Kind::Primitive, types: U32 },
    Op { name: "semaphore_acquire", kind: Kind::Primitive, types: U32 },
    Op { name: "semaphore_try_acquire", kind: Kind::Primitive, types: U32 },
    Op { name: "semaphore_release", kind: Kind::Primitive, types: U32 },
    Op { name: "binary_semaphore_acquire", kind: Kind::Primitive, types: U32 },
    Op { name: "binary_semaphore_acquire_nanosleep", kind: Kind::Primitive, types: U32 },
    Op { name: "binary_semaphore_try_acquire", kind: Kind::Primitive, types: U32 },
    Op { name: "binary_semaphore_release", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_count_down", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_try_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_arrive_and_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_arrive", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_arrive_then_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_arrive_and_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_arrive_and_wait_with", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_arrive_and_drop", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_arrive_n", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_wait_parity", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_try_wait_parity", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_init", kind: Kind::Primitive, types: U32 },
    Op { name: "semaphore_init", kind: Kind::Primitive, types: U32 },
    Op { name: "atomic_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "atomic_wait_until_for", kind: Kind::Primitive, types: U32 },
    Op { name: "block_barrier_init", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive_and_drop", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_test_wait", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive_and_wait", kind: Kind::Block, types: NONE },
    Op { name: "dynamic_shared_memory", kind: Kind::Block, types: NONE },
    Op { name: "grid_sync", kind: Kind::Block, types: NONE },
    Op { name: "cluster_sync", kind: Kind::Block, types: NONE },
    Op { name: "cluster_arrive_relaxed", kind: Kind::Block, types: NONE },
    Op { name: "cluster_map_shared", kind: Kind::Block, types: NONE },
    Op { name: "sleep_ns", kind: Kind::Wait, types: NONE },
    Op { name: "global_timer_ns", kind: Kind::Wait, types: NONE },
    Op { name: "lane", kind: Kind::Wait, types: NONE },
    Op { name: "active_mask", kind: Kind::Wait, types: NONE },
    Op { name: "warp_sync", kind: Kind::Wait, types: NONE },
    Op { name: "match_any", kind: Kind::Wait, types: NONE },
    Op { name: "peers", kind: Kind::Wait, types: NONE },
    Op { name: "match_any_u32", kind: Kind::Wait, types: NONE },
    Op { name: "match_all", kind: Kind::Wait, types: NONE },
    Op { name: "match_all_u32", kind: Kind::Wait, types: NONE },
    Op { name: "ballot", kind: Kind::Wait, types: NONE },
    Op { name: "any", kind: Kind::Wait, types: NONE },
    Op { name: "all", kind: Kind::Wait, types: NONE },
    Op { name: "uni", kind: Kind::Wait, types: NONE },
    // Shuffles of every `ShuffleValue`: one `shfl.sync` for 32-bit types, two for 64-bit ones.
    Op { name: "shfl_idx", kind: Kind::Wait, types: ALL },
    Op { name: "shfl_up", kind: Kind::Wait, types: ALL },
    Op { name: "shfl_down", kind: Kind::Wait, types: ALL },
    Op { name: "shfl_xor", kind: Kind::Wait, types: ALL },
    Op { name: "elect_one", kind: Kind::Wait, types: NONE },
    Op { name: "leader", kind: Kind::Wait, types: NONE },
];

/// The orders each kind accepts (the others panic, as in `core::sync::atomic`).
pub fn orders(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Load | Kind::AtomicWait => &["Relaxed", "Acquire", "SeqCst"],
        Kind::Store | Kind::Red => &["Relaxed", "Release", "SeqCst"],
        Kind::Rmw | Kind::RmwLoop | Kind::Cas | Kind::Update => {
            &["Relaxed", "Acquire", "Release", "AcqRel", "SeqCst"]
        }
        Kind::Fence | Kind::CompilerFence => &["Acquire", "Release", "AcqRel", "SeqCst"],
        Kind::VolatileRead | Kind::VolatileWrite | Kind::BlockSync => &["none"],
        Kind::MutexLock | Kind::MutexTryLock | Kind::Wait => &["none"],
        Kind::Primitive | Kind::Block | Kind::Notify => &["none"],
    }
}

/// Failure orders of a compare-exchange.
pub const CAS_FAILURE: [&str; 3] = ["Relaxed", "Acquire", "SeqCst"];

/// Whether a case needs sm_90 (cluster scope and operations, 128-bit atomics,
/// `mbarrier.try_wait`, which the sm_90 build of `BlockBarrier::wait` uses, and `elect.sync`).
pub fn needs_sm90(op: &str, scope: &str, ty: &str) -> bool {
    scope == "Cluster"
        || ty == "u128"
        || op.starts_with("cluster_")
        || op == "block_barrier_arrive_and_wait"
        || op == "elect_one"
}

/// Every case as (kernel name, op, order or "success_failure", scope or "none", type).
pub fn cases() -> Vec<(String, &'static Op, String, &'static str, &'static str)> {
    let mut out = Vec::new();
    for op in OPS {
        let scopes: &[&str] = match op.kind {
            Kind::CompilerFence
            | Kind::VolatileRead
            | Kind::VolatileWrite
            | Kind::BlockSync
            | Kind::Block
            | Kind::Wait => &["none"],
            _ => &SCOPES,
        };
        for &ty in op.types {
            for &scope in scopes {
                let mut list: Vec<String> = Vec::new();
                for &o in orders(op.kind) {
                    if matches!(op.kind, Kind::Cas | Kind::Update) {
                        for f in CAS_FAILURE {
                            list.push(format!("{o}_{f}"));
                        }
                    } else {
                        list.push(o.to_string());
                    }
                }
                for order in list {
                    let name = format!("g__{}__{}__{}__{}", op.name, order, scope, ty);
                    out.push((name, op, order, scope, ty));
                }
            }
        }
    }
    out
}
