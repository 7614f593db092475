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
    /// A block, grid or cluster operation (GPU only but for the `index_*` position reads): no
    /// scope, no order. Compared as a set.
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
    /// A read-modify-write PTX has no instruction for at this width or type (8/16-bit integer
    /// RMWs, 16-bit swaps, float min/max): a relaxed load of the containing 32-bit word (the
    /// value itself for 32/64-bit types), then compare-exchanges carrying the order. A set.
    WordLoop,
    /// An 8-bit compare-exchange: the containing word loaded with the failure order, then
    /// 32-bit compare-exchanges with both orders merged (as `Update`). A set.
    WordCas,
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
/// Every type with `wait_until_for` / `wait_until_deadline` (`AtomicFlag`'s timed waits are
/// `wait_for` / `wait_until`).
pub const TIMED_WAITS: &[&str] = &[
    "u32", "i32", "u64", "i64", "usize", "isize", "f32", "f64", "bool", "ptr",
];
pub const BOOL: &[&str] = &["bool"];
pub const FLAG: &[&str] = &["flag"];
pub const U32: &[&str] = &["u32"];
pub const NONE: &[&str] = &["none"];
/// The 8- and 16-bit integers (device/src/atomic/small.rs).
pub const SMALL: &[&str] = &["u8", "i8", "u16", "i16"];
/// The half floats (device/src/atomic/half.rs; `f16` is `ptx_sync::F16`, `f16x2` `F16x2`...).
pub const HALVES: &[&str] = &["f16", "bf16", "f16x2", "bf16x2"];
/// Every 8/16-bit type and half float: native loads and stores, `wait`.
pub const NARROW: &[&str] = &["u8", "i8", "u16", "i16", "f16", "bf16", "f16x2", "bf16x2"];
/// Types whose `swap` is a loop on the containing word (PTX has no 8/16-bit exchange).
pub const SWAP_LOOP: &[&str] = &["u8", "i8", "u16", "i16", "f16", "bf16"];
/// 8-bit types: compare-exchange emulated on the word.
pub const BYTES: &[&str] = &["u8", "i8"];
/// Native compare-exchange (`atom.cas.b16` / `.b32`) of the new types.
pub const NATIVE_CAS: &[&str] = &["u16", "i16", "f16", "bf16", "f16x2", "bf16x2"];
/// New `compare_exchange_weak` types (the floats had none).
pub const NATIVE_CAS_WEAK: &[&str] = &["u16", "i16", "f16", "bf16", "f16x2", "bf16x2", "f32", "f64"];
/// New `fetch_update` types.
pub const UPDATES: &[&str] = &[
    "u8", "i8", "u16", "i16", "f16", "bf16", "f16x2", "bf16x2", "f32", "f64",
];
/// `update` / `try_update`: every type with a compare-exchange.
pub const EVERY_UPDATE: &[&str] = &[
    "u32", "i32", "u64", "i64", "usize", "isize", "f32", "f64", "bool", "ptr", "u8", "i8", "u16",
    "i16", "f16", "bf16", "f16x2", "bf16x2",
];
/// Float min/max as compare-exchange loops (PTX has no scalar float `atom.min/max`).
pub const FLOAT_MINMAX: &[&str] = &["f32", "f64", "f16", "bf16", "f16x2", "bf16x2"];
/// The sm_90 vector types (device/src/atomic/vector.rs): `v2f32` is `AtomicF32x2`, `v4f16`
/// `AtomicF16x4` (`.v2.f16x2`), `v8f16` `AtomicF16x8` (`.v4.f16x2`)...
pub const VECTORS: &[&str] = &["v2f32", "v4f32", "v4f16", "v8f16", "v4bf16", "v8bf16"];
/// Vector types with `min` / `max` (the half ones).
pub const HALF_VECTORS: &[&str] = &["v4f16", "v8f16", "v4bf16", "v8bf16"];
/// The integers of the warp reductions `reduce_min/max/and/or/xor` (device/src/warp/reduce.rs).
pub const WARP_INTS: &[&str] = &["u32", "i32", "u64", "i64"];
/// The state-space handles (device/src/atomic/space.rs): `shared_T` is `Shared<Atomic<T, S>>`
/// (`.shared::cta`), `global_T` `Global<Atomic<T, S>>` (`.global`), `cluster_T`
/// `ClusterShared<Atomic<T, S>>` (`.shared::cluster`, sm_90). See [`space_of`].
pub const SPACE_ALL: &[&str] = &[
    "shared_u32", "shared_i32", "shared_u64", "shared_i64", "shared_f32", "shared_f64",
    "global_u32", "global_i32", "global_u64", "global_i64", "global_f32", "global_f64",
    "cluster_u32", "cluster_i32", "cluster_u64", "cluster_i64", "cluster_f32", "cluster_f64",
];
/// The state-space handles of the integers (bitwise, min, max).
pub const SPACE_INTS: &[&str] = &[
    "shared_u32", "shared_i32", "shared_u64", "shared_i64",
    "global_u32", "global_i32", "global_u64", "global_i64",
    "cluster_u32", "cluster_i32", "cluster_u64", "cluster_i64",
];

/// A state-space handle's type code split into its PTX state space and value type
/// (`"global_u64"` -> `("global", "u64")`); `None` for the other types.
pub fn space_of(ty: &str) -> Option<(&'static str, &str)> {
    let (prefix, base) = ty.split_once('_')?;
    let space = match prefix {
        "shared" => "shared::cta",
        "global" => "global",
        "cluster" => "shared::cluster",
        _ => return None,
    };
    Some((space, base))
}

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
    // Timed waits (device/src/atomic/waiting.rs, flag.rs): the same polls, and `%globaltimer`
    // for the deadline.
    Op { name: "wait_until_for", kind: Kind::AtomicWait, types: TIMED_WAITS },
    Op { name: "wait_until_deadline", kind: Kind::AtomicWait, types: TIMED_WAITS },
    Op { name: "wait_for", kind: Kind::AtomicWait, types: FLAG },
    Op { name: "wait_until", kind: Kind::AtomicWait, types: FLAG },
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
    // 8/16-bit integers and half floats (small.rs, half.rs), `update` / `try_update` of every
    // type, float min/max, and sm_90 vector atomics (vector.rs).
    Op { name: "load", kind: Kind::Load, types: NARROW },
    Op { name: "store", kind: Kind::Store, types: NARROW },
    Op { name: "swap", kind: Kind::WordLoop, types: SWAP_LOOP },
    Op { name: "swap", kind: Kind::Rmw, types: &["f16x2", "bf16x2"] },
    Op { name: "compare_exchange", kind: Kind::WordCas, types: BYTES },
    Op { name: "compare_exchange_weak", kind: Kind::WordCas, types: BYTES },
    Op { name: "compare_exchange", kind: Kind::Cas, types: NATIVE_CAS },
    Op { name: "compare_exchange_weak", kind: Kind::Cas, types: NATIVE_CAS_WEAK },
    Op { name: "fetch_update", kind: Kind::Update, types: UPDATES },
    Op { name: "update", kind: Kind::Update, types: EVERY_UPDATE },
    Op { name: "try_update", kind: Kind::Update, types: EVERY_UPDATE },
    Op { name: "fetch_add", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_sub", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_and", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_or", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_xor", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_nand", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_min", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_max", kind: Kind::WordLoop, types: SMALL },
    Op { name: "fetch_add", kind: Kind::Rmw, types: HALVES },
    Op { name: "fetch_sub", kind: Kind::Rmw, types: HALVES },
    Op { name: "red_add", kind: Kind::Red, types: HALVES },
    Op { name: "fetch_min", kind: Kind::WordLoop, types: FLOAT_MINMAX },
    Op { name: "fetch_max", kind: Kind::WordLoop, types: FLOAT_MINMAX },
    Op { name: "wait", kind: Kind::AtomicWait, types: NARROW },
    Op { name: "fetch_add", kind: Kind::Rmw, types: VECTORS },
    Op { name: "red_add", kind: Kind::Red, types: VECTORS },
    Op { name: "fetch_min", kind: Kind::Rmw, types: HALF_VECTORS },
    Op { name: "fetch_max", kind: Kind::Rmw, types: HALF_VECTORS },
    Op { name: "red_min", kind: Kind::Red, types: HALF_VECTORS },
    Op { name: "red_max", kind: Kind::Red, types: HALF_VECTORS },
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
    // Timed waits with a `Duration` (`*_for`) or an `Instant` (`*_until`), `count_down()`, and
    // a barrier with a stored completion (device/src/wait.rs, clock.rs, barrier.rs ...).
    Op { name: "atomic_wait_until_deadline", kind: Kind::Primitive, types: U32 },
    Op { name: "poll_until_for", kind: Kind::Primitive, types: U32 },
    Op { name: "poll_until_deadline", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_count_down_one", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_wait_for", kind: Kind::Primitive, types: U32 },
    Op { name: "latch_wait_until", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_wait_for", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_wait_until", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_wait_parity_for", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_wait_parity_until", kind: Kind::Primitive, types: U32 },
    Op { name: "semaphore_try_acquire_for", kind: Kind::Primitive, types: U32 },
    Op { name: "semaphore_try_acquire_until", kind: Kind::Primitive, types: U32 },
    Op { name: "binary_semaphore_try_acquire_for", kind: Kind::Primitive, types: U32 },
    Op { name: "binary_semaphore_try_acquire_until", kind: Kind::Primitive, types: U32 },
    Op { name: "mutex_try_lock_for", kind: Kind::Primitive, types: U32 },
    Op { name: "mutex_try_lock_until", kind: Kind::Primitive, types: U32 },
    Op { name: "ticket_try_lock_for", kind: Kind::Primitive, types: U32 },
    Op { name: "ticket_try_lock_until", kind: Kind::Primitive, types: U32 },
    // The reader-writer lock (device/src/rwlock.rs) and the turn queue (device/src/queue.rs).
    Op { name: "rwlock_read", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_write", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_try_read", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_try_write", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_try_read_for", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_try_read_until", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_try_write_for", kind: Kind::Primitive, types: U32 },
    Op { name: "rwlock_try_write_until", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_push", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_pop", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_try_push", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_try_pop", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_push_for", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_push_until", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_pop_for", kind: Kind::Primitive, types: U32 },
    Op { name: "queue_pop_until", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_completion_arrive", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_completion_arrive_and_wait", kind: Kind::Primitive, types: U32 },
    Op { name: "barrier_completion_arrive_and_drop", kind: Kind::Primitive, types: U32 },
    Op { name: "block_barrier_init", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive_and_drop", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_test_wait", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive_and_wait", kind: Kind::Block, types: NONE },
    // One arrival for `n` (sm_90: the count form; sm_80: `.noComplete` for n - 1, then one).
    Op { name: "block_barrier_arrive_n", kind: Kind::Block, types: NONE },
    // Parity and timed waits (device/src/block_barrier/timed.rs); all but `try_wait_parity`
    // use sm_90's `mbarrier.try_wait` (with the suspend-time hint when timed).
    Op { name: "block_barrier_try_wait_parity", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_wait_parity", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_wait_for", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_wait_until", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_wait_parity_for", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_wait_parity_until", kind: Kind::Block, types: NONE },
    // Transaction counts and bulk copies (sm_90): device/src/block_barrier/tx.rs, bulk.rs.
    Op { name: "block_barrier_expect_tx", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_arrive_expect_tx", kind: Kind::Block, types: NONE },
    Op { name: "block_barrier_complete_tx", kind: Kind::Block, types: NONE },
    Op { name: "bulk_copy_global_to_shared", kind: Kind::Block, types: NONE },
    Op { name: "bulk_fence_proxy_async_shared", kind: Kind::Block, types: NONE },
    Op { name: "bulk_fence_proxy_async", kind: Kind::Block, types: NONE },
    Op { name: "dynamic_shared_memory", kind: Kind::Block, types: NONE },
    Op { name: "grid_sync", kind: Kind::Block, types: NONE },
    // The aligned forms (`bar.sync 0`): device/src/block.rs `sync_aligned`, grid.rs.
    Op { name: "grid_sync_aligned", kind: Kind::Block, types: NONE },
    Op { name: "block_sync_aligned", kind: Kind::Block, types: NONE },
    Op { name: "cluster_sync", kind: Kind::Block, types: NONE },
    Op { name: "cluster_arrive_relaxed", kind: Kind::Block, types: NONE },
    Op { name: "cluster_map_shared", kind: Kind::Block, types: NONE },
    // A thread's position (device/src/index.rs): special-register reads and arithmetic.
    Op { name: "index_thread_idx_x", kind: Kind::Block, types: NONE },
    Op { name: "index_thread_idx_y", kind: Kind::Block, types: NONE },
    Op { name: "index_thread_idx_z", kind: Kind::Block, types: NONE },
    Op { name: "index_block_idx_x", kind: Kind::Block, types: NONE },
    Op { name: "index_block_idx_y", kind: Kind::Block, types: NONE },
    Op { name: "index_block_idx_z", kind: Kind::Block, types: NONE },
    Op { name: "index_block_dim_x", kind: Kind::Block, types: NONE },
    Op { name: "index_block_dim_y", kind: Kind::Block, types: NONE },
    Op { name: "index_block_dim_z", kind: Kind::Block, types: NONE },
    Op { name: "index_grid_dim_x", kind: Kind::Block, types: NONE },
    Op { name: "index_grid_dim_y", kind: Kind::Block, types: NONE },
    Op { name: "index_grid_dim_z", kind: Kind::Block, types: NONE },
    Op { name: "index_thread_rank", kind: Kind::Block, types: NONE },
    Op { name: "index_block_size", kind: Kind::Block, types: NONE },
    Op { name: "index_block_rank", kind: Kind::Block, types: NONE },
    Op { name: "index_block_count", kind: Kind::Block, types: NONE },
    Op { name: "index_global_thread_x", kind: Kind::Block, types: NONE },
    Op { name: "index_global_thread_y", kind: Kind::Block, types: NONE },
    Op { name: "index_global_thread_z", kind: Kind::Block, types: NONE },
    Op { name: "index_global_rank", kind: Kind::Block, types: NONE },
    Op { name: "index_global_thread_count", kind: Kind::Block, types: NONE },
    Op { name: "index_grid_stride", kind: Kind::Block, types: NONE },
    Op { name: "index_warp_rank", kind: Kind::Block, types: NONE },
    Op { name: "index_warp_count", kind: Kind::Block, types: NONE },
    Op { name: "sleep_ns", kind: Kind::Wait, types: NONE },
    Op { name: "global_timer_ns", kind: Kind::Wait, types: NONE },
    Op { name: "instant_now", kind: Kind::Wait, types: NONE },
    Op { name: "instant_elapsed", kind: Kind::Wait, types: NONE },
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
    // Warp reductions and scans over a mask (device/src/warp/reduce.rs): `redux.sync` for the
    // 32-bit integers (sm_80+), a shuffle tree for the others; lane masks (warp.rs).
    Op { name: "reduce_add", kind: Kind::Wait, types: ALL },
    Op { name: "reduce_min", kind: Kind::Wait, types: WARP_INTS },
    Op { name: "reduce_max", kind: Kind::Wait, types: WARP_INTS },
    Op { name: "reduce_and", kind: Kind::Wait, types: WARP_INTS },
    Op { name: "reduce_or", kind: Kind::Wait, types: WARP_INTS },
    Op { name: "reduce_xor", kind: Kind::Wait, types: WARP_INTS },
    Op { name: "inclusive_scan_add", kind: Kind::Wait, types: ALL },
    Op { name: "exclusive_scan_add", kind: Kind::Wait, types: ALL },
    Op { name: "lanemask_lt", kind: Kind::Wait, types: NONE },
    Op { name: "lanemask_le", kind: Kind::Wait, types: NONE },
    Op { name: "lanemask_eq", kind: Kind::Wait, types: NONE },
    Op { name: "lanemask_ge", kind: Kind::Wait, types: NONE },
    Op { name: "lanemask_gt", kind: Kind::Wait, types: NONE },
    // State-space atomics (device/src/atomic/space.rs): the `Atomic` instruction with the
    // space after the scope.
    Op { name: "load", kind: Kind::Load, types: SPACE_ALL },
    Op { name: "store", kind: Kind::Store, types: SPACE_ALL },
    Op { name: "swap", kind: Kind::Rmw, types: SPACE_ALL },
    Op { name: "compare_exchange", kind: Kind::Cas, types: SPACE_ALL },
    Op { name: "compare_exchange_weak", kind: Kind::Cas, types: SPACE_ALL },
    Op { name: "fetch_add", kind: Kind::Rmw, types: SPACE_ALL },
    Op { name: "fetch_sub", kind: Kind::Rmw, types: SPACE_ALL },
    Op { name: "fetch_and", kind: Kind::Rmw, types: SPACE_INTS },
    Op { name: "fetch_or", kind: Kind::Rmw, types: SPACE_INTS },
    Op { name: "fetch_xor", kind: Kind::Rmw, types: SPACE_INTS },
    Op { name: "fetch_min", kind: Kind::Rmw, types: SPACE_INTS },
    Op { name: "fetch_max", kind: Kind::Rmw, types: SPACE_INTS },
    Op { name: "red_add", kind: Kind::Red, types: SPACE_ALL },
];

/// The orders each kind accepts (the others panic, as in `core::sync::atomic`).
pub fn orders(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Load | Kind::AtomicWait => &["Relaxed", "Acquire", "SeqCst"],
        Kind::Store | Kind::Red => &["Relaxed", "Release", "SeqCst"],
        Kind::Rmw | Kind::RmwLoop | Kind::Cas | Kind::Update | Kind::WordLoop | Kind::WordCas => {
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
/// `mbarrier.try_wait`, which the sm_90 build of `BlockBarrier::wait` uses, `elect.sync`, the
/// `mbarrier` transaction counts (`*_tx`) and bulk copies (`bulk_*`)).
pub fn needs_sm90(op: &str, scope: &str, ty: &str) -> bool {
    scope == "Cluster"
        || ty == "u128"
        || op.starts_with("cluster_")
        || op == "block_barrier_arrive_and_wait"
        || op.starts_with("block_barrier_wait_")
        || op.ends_with("_tx")
        || op.starts_with("bulk_")
        || op == "elect_one"
        // `.shared::cluster` (distributed shared memory) is sm_90.
        || ty.starts_with("cluster_")
        // Vector atom/red, and bfloat16 adds (`atom.add.noftz.bf16(x2)`), are sm_90 instructions.
        || VECTORS.contains(&ty)
        || (ty.starts_with("bf16") && matches!(op, "fetch_add" | "fetch_sub" | "red_add"))
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
                    if matches!(op.kind, Kind::Cas | Kind::Update | Kind::WordCas) {
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
