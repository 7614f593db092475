//! Golden PTX: every public operation x order x scope x type emits exactly the instruction(s)
//! the PTX memory model mapping says it must (DEVELOPMENT.md, "Orders and scopes -> PTX").
//!
//! The kernels come from tests/golden (one per case in tests/golden/cases.rs). The expected
//! instructions are derived here, independently of the device crate's macros, from the rules
//! in the PTX ISA: a wrong scope, order or type in the crate fails this test.

#[allow(dead_code)]
mod cases {
    include!("../golden/cases.rs");
}

use cases::{cases, needs_sm90, Kind};
use ptx_sync_testkit::ptx::entry_lines;
use std::collections::BTreeMap;

fn bits(ty: &str) -> &'static str {
    match ty {
        // `bool` and `flag` are `u32` words; nvptx64's `usize`, `isize` and pointers 64-bit.
        "u32" | "i32" | "f32" | "bool" | "flag" => "b32",
        "u64" | "i64" | "f64" | "usize" | "isize" | "ptr" => "b64",
        "u128" => "b128",
        // The narrow types and half floats (device/src/atomic/small.rs, half.rs).
        "u8" | "i8" => "b8",
        "u16" | "i16" | "f16" | "bf16" => "b16",
        "f16x2" | "bf16x2" => "b32",
        other => panic!("no bit width for {other}"),
    }
}

/// The width of a compare-exchange loop's word: PTX has no 8-bit `atom` and no 16-bit exchange
/// or arithmetic, so a loop on a narrow value works on the aligned 32-bit word around it.
fn word_bits(ty: &str) -> &'static str {
    match bits(ty) {
        "b8" | "b16" => "b32",
        b => b,
    }
}

/// The arithmetic type of `atom.add` (PTX has no `.s64` add: `.u64` is the same operation).
fn add_type(ty: &str) -> &'static str {
    match ty {
        "u32" => "u32",
        "i32" => "s32",
        "u64" | "i64" | "usize" | "isize" => "u64",
        "f32" => "f32",
        "f64" => "f64",
        // PTX requires `.noftz` on the half-precision adds (it keeps subnormals).
        "f16" => "noftz.f16",
        "bf16" => "noftz.bf16",
        "f16x2" => "noftz.f16x2",
        "bf16x2" => "noftz.bf16x2",
        other => panic!("no add type for {other}"),
    }
}

/// The comparison type of `atom.min` / `atom.max`: signedness matters.
fn minmax_type(ty: &str) -> &'static str {
    match ty {
        "u32" => "u32",
        "i32" => "s32",
        "u64" | "usize" => "u64",
        "i64" | "isize" => "s64",
        other => panic!("no min/max type for {other}"),
    }
}

/// `op.type` part of an `atom`/`red` for a public method name.
fn rmw_op(name: &str, ty: &str) -> String {
    let base = name.trim_start_matches("fetch_").trim_start_matches("red_");
    // sm_90 vector forms (PTX ISA 8.1, "atom with vector type"): `f32` lanes add only; half
    // lanes as packed pairs, add/min/max all with the required `.noftz`.
    let vector = match ty {
        "v2f32" => Some(("v2", "f32")),
        "v4f32" => Some(("v4", "f32")),
        "v4f16" => Some(("v2", "f16x2")),
        "v8f16" => Some(("v4", "f16x2")),
        "v4bf16" => Some(("v2", "bf16x2")),
        "v8bf16" => Some(("v4", "bf16x2")),
        _ => None,
    };
    if let Some((v, lane)) = vector {
        let noftz = if lane == "f32" { "" } else { ".noftz" };
        return format!("{base}{noftz}.{v}.{lane}");
    }
    match base {
        // The flag's `test_and_set` exchanges in a 1; `bool`'s `fetch_not` XORs 1.
        "swap" | "test_and_set" => format!("exch.{}", bits(ty)),
        "not" => format!("xor.{}", bits(ty)),
        "add" | "sub" => format!("add.{}", add_type(ty)),
        "and" | "or" | "xor" => format!("{base}.{}", bits(ty)),
        "min" | "max" => format!("{base}.{}", minmax_type(ty)),
        "inc" | "dec" => format!("{base}.u32"),
        other => panic!("unknown rmw {other}"),
    }
}

/// The PTX model's mapping (the same as libcu++ on sm_70+): seq_cst is `fence.sc` followed by
/// the acquire form of a read or RMW, or the relaxed form of a write.
fn sem(order: &str, writes_only: bool) -> (bool, &'static str) {
    match order {
        "Relaxed" => (false, "relaxed"),
        "Acquire" => (false, "acquire"),
        "Release" => (false, "release"),
        "AcqRel" => (false, "acq_rel"),
        "SeqCst" if writes_only => (true, "relaxed"),
        "SeqCst" => (true, "acquire"),
        other => panic!("unknown order {other}"),
    }
}

/// `GridBarrier::sync` (device/src/grid.rs): no fence.sc, release/acquire on the arrival word;
/// the RMW is also the acquire of the last arrival, which skips its poll. The position
/// registers say which thread arrives (thread rank 0) and how (block rank 0 adds the flip less
/// the other blocks' count: `%nctaid.*`). The block barrier comes first.
const GRID_SYNC_ARRIVAL: [&str; 13] = [
    "atom.acq_rel.gpu.add.u32",
    "ld.acquire.gpu.b32",
    "mov.u32 %tid.x",
    "mov.u32 %tid.y",
    "mov.u32 %tid.z",
    "mov.u32 %ntid.x",
    "mov.u32 %ntid.y",
    "mov.u32 %ctaid.x",
    "mov.u32 %ctaid.y",
    "mov.u32 %ctaid.z",
    "mov.u32 %nctaid.x",
    "mov.u32 %nctaid.y",
    "mov.u32 %nctaid.z",
];

/// `GridBarrier::sync`: `barrier.sync` and the arrival.
const GRID_SYNC: [&str; 14] = with_block_barrier("barrier.sync");

/// `GridBarrier::sync_aligned`: `bar.sync` and the arrival.
const GRID_SYNC_ALIGNED: [&str; 14] = with_block_barrier("bar.sync");

const fn with_block_barrier(barrier: &'static str) -> [&'static str; 14] {
    let mut v = [barrier; 14];
    let mut i = 0;
    while i < GRID_SYNC_ARRIVAL.len() {
        v[i + 1] = GRID_SYNC_ARRIVAL[i];
        i += 1;
    }
    v
}

/// One `.sem` for a compare-exchange: it must acquire if either order acquires, release if the
/// success order releases, and be seq_cst if either is.
fn cas_order(success: &str, failure: &str) -> &'static str {
    if success == "SeqCst" || failure == "SeqCst" {
        return "SeqCst";
    }
    let acquire = matches!(success, "Acquire" | "AcqRel") || failure == "Acquire";
    let release = matches!(success, "Release" | "AcqRel");
    match (acquire, release) {
        (false, false) => "Relaxed",
        (true, false) => "Acquire",
        (false, true) => "Release",
        (true, true) => "AcqRel",
    }
}

fn expected(op: &str, kind: Kind, order: &str, scope: &str, ty: &str) -> Vec<String> {
    // A state-space handle: the generic instruction of its value type with the state space
    // after the scope (PTX ISA: `atom{.sem}{.scope}{.space}.op.type`, likewise `ld`, `st`,
    // `red`); the cluster handle first maps the address into the target block (`mapa`).
    if let Some((space, base)) = cases::space_of(ty) {
        let mut v: Vec<String> = expected(op, kind, order, scope, base)
            .into_iter()
            .map(|insn| with_space(&insn, space))
            .collect();
        if space == "shared::cluster" {
            v.insert(0, "mapa.shared::cluster.u32".to_string());
        }
        return v;
    }
    let s = scope.to_lowercase();
    let with_fence = |fence: bool, insn: String| {
        let mut v = Vec::new();
        if fence {
            v.push(format!("fence.sc.{s}"));
        }
        v.push(insn);
        v
    };
    match kind {
        Kind::Load => {
            let (f, sem) = sem(order, false);
            with_fence(f, format!("ld.{sem}.{s}.{}", bits(ty)))
        }
        Kind::Store => {
            let (f, sem) = sem(order, true);
            with_fence(f, format!("st.{sem}.{s}.{}", bits(ty)))
        }
        Kind::Rmw => {
            let (f, sem) = sem(order, false);
            with_fence(f, format!("atom.{sem}.{s}.{}", rmw_op(op, ty)))
        }
        Kind::Cas => {
            let (succ, fail) = order.split_once('_').unwrap();
            let (f, sem) = sem(cas_order(succ, fail), false);
            with_fence(f, format!("atom.{sem}.{s}.cas.{}", bits(ty)))
        }
        Kind::Red => {
            let (f, sem) = sem(order, true);
            with_fence(f, format!("red.{sem}.{s}.{}", rmw_op(op, ty)))
        }
        // No `atom.nand` in PTX. `bool`: NAND with true is NOT (`xor` 1), with false it is
        // `exch` of 1, one of the two picked at run time. Integers: a relaxed load for the
        // first guess, then the compare-exchange that carries the order, in a loop.
        Kind::RmwLoop => {
            let (f, sem) = sem(order, false);
            let b = bits(ty);
            let mut v = if ty == "bool" {
                vec![
                    format!("atom.{sem}.{s}.xor.{b}"),
                    format!("atom.{sem}.{s}.exch.{b}"),
                ]
            } else {
                vec![
                    format!("ld.relaxed.{s}.{b}"),
                    format!("atom.{sem}.{s}.cas.{b}"),
                ]
            };
            if f {
                v.push(format!("fence.sc.{s}"));
            }
            set(&v.iter().map(|x| x.as_str()).collect::<Vec<_>>())
        }
        // A relaxed load of the value (the containing word for 8/16-bit types), then the
        // compare-exchange that carries the order, in a loop. Float min/max load with the
        // acquire part of the order: when the value would not change they return after the
        // load, which is then the whole operation (device/src/atomic/float.rs).
        Kind::WordLoop => {
            let (f, sem) = sem(order, false);
            let b = word_bits(ty);
            let float_minmax =
                matches!(op, "fetch_min" | "fetch_max") && cases::FLOAT_MINMAX.contains(&ty);
            let load = match order {
                "Acquire" | "AcqRel" | "SeqCst" if float_minmax => "acquire",
                _ => "relaxed",
            };
            let mut v = vec![
                format!("ld.{load}.{s}.{b}"),
                format!("atom.{sem}.{s}.cas.{b}"),
            ];
            if f {
                v.push(format!("fence.sc.{s}"));
            }
            set(&v.iter().map(|x| x.as_str()).collect::<Vec<_>>())
        }
        // A load with the fetch order, then compare-exchanges with both orders merged (an
        // 8-bit compare-exchange is this with success and failure orders: `WordCas`), on the
        // containing word for 8/16-bit types.
        Kind::Update | Kind::WordCas => {
            let (set_order, fetch) = order.split_once('_').unwrap();
            let (lf, load_sem) = sem(fetch, false);
            let (cf, cas_sem) = sem(cas_order(set_order, fetch), false);
            let b = word_bits(ty);
            let mut v = vec![
                format!("ld.{load_sem}.{s}.{b}"),
                format!("atom.{cas_sem}.{s}.cas.{b}"),
            ];
            if lf || cf {
                v.push(format!("fence.sc.{s}"));
            }
            set(&v.iter().map(|x| x.as_str()).collect::<Vec<_>>())
        }
        // Polling loads with the order (the flag's `test`), `nanosleep` between them.
        Kind::AtomicWait => {
            let (f, sem) = sem(order, false);
            let mut v = vec![
                format!("ld.{sem}.{s}.{}", bits(ty)),
                "nanosleep.u32".to_string(),
            ];
            if f {
                v.push(format!("fence.sc.{s}"));
            }
            // The timed forms (`wait_until_for`, `wait_until_deadline`, the flag's `wait_for`,
            // `wait_until`) also read the clock for their deadline.
            if op != "wait" {
                v.push("mov.u64 %globaltimer".to_string());
            }
            set(&v.iter().map(|x| x.as_str()).collect::<Vec<_>>())
        }
        // Waiters poll: nothing to wake.
        Kind::Notify => vec![],
        Kind::Fence if order == "SeqCst" => vec![format!("fence.sc.{s}")],
        Kind::Fence => vec![format!("fence.acq_rel.{s}")],
        Kind::CompilerFence => vec![],
        Kind::VolatileRead if op.ends_with("mmio") => {
            vec![format!("ld.mmio.relaxed.sys.{}", bits(ty))]
        }
        Kind::VolatileRead => vec![format!("ld.volatile.{}", bits(ty))],
        Kind::VolatileWrite if op.ends_with("mmio") => {
            vec![format!("st.mmio.relaxed.sys.{}", bits(ty))]
        }
        Kind::VolatileWrite => vec![format!("st.volatile.{}", bits(ty))],
        // Not `bar.sync` (= barrier.sync.aligned): see device/src/block.rs.
        Kind::BlockSync => vec!["barrier.sync".to_string()],
        // The warp-aggregated lock (device/src/mutex.rs), as a set: the lanes grouped by
        // mutex address, the leader's test-and-test-and-set on the lock word at scope S, the
        // lane-to-lane handoff by warp barrier, the last lane's release at S.
        Kind::MutexLock => set(&[
            "activemask.b32",
            "match.any.sync.b64",
            &format!("atom.acquire.{s}.cas.b32"),
            "bar.warp.sync",
            &format!("ld.relaxed.{s}.b32"),
            "mov.u32 %laneid",
            "nanosleep.u32",
            &format!("st.release.{s}.b32"),
        ]),
        Kind::MutexTryLock => set(&[
            &format!("atom.acquire.{s}.cas.b32"),
            "mov.u32 %laneid",
            &format!("st.release.{s}.b32"),
        ]),
        Kind::Primitive => primitive(op, &s),
        Kind::Block if op.starts_with("index_") => index_registers(op),
        Kind::Block => set(match op {
            "block_barrier_init" => &["cvta.to.shared.u64", "mbarrier.init.shared.b64"],
            "block_barrier_arrive" => &["cvta.to.shared.u64", "mbarrier.arrive.shared.b64"],
            "block_barrier_arrive_and_drop" => {
                &["cvta.to.shared.u64", "mbarrier.arrive_drop.shared.b64"]
            }
            // sm_90: the count form of a completing arrival (PTX ISA "mbarrier.arrive": a
            // count without `.noComplete` is PTX 7.8, sm_90), `.release.cta` spelled out.
            // sm_80: `arrive_n_sm80`.
            "block_barrier_arrive_n" => &[
                "cvta.to.shared.u64",
                "mbarrier.arrive.release.cta.shared::cta.b64",
            ],
            "block_barrier_test_wait" => &[
                "cvta.to.shared.u64",
                "mbarrier.arrive.shared.b64",
                "mbarrier.test_wait.shared.b64",
            ],
            // sm_90 only: the hardware-suspending `try_wait`.
            "block_barrier_arrive_and_wait" => &[
                "cvta.to.shared.u64",
                "mbarrier.arrive.shared.b64",
                "mbarrier.try_wait.shared.b64",
            ],
            // Parity waits (PTX ISA "mbarrier.test_wait/try_wait", `.parity`): `test_wait` is
            // the non-blocking test (sm_80), `try_wait` suspends (sm_90).
            "block_barrier_try_wait_parity" => {
                &["cvta.to.shared.u64", "mbarrier.test_wait.parity.shared.b64"]
            }
            "block_barrier_wait_parity" => {
                &["cvta.to.shared.u64", "mbarrier.try_wait.parity.shared.b64"]
            }
            // Timed (device/src/block_barrier/timed.rs): one non-blocking `test_wait`, then
            // `%globaltimer` for the time left and `try_wait` with it as the suspend-time hint
            // (the operand is checked by `timed_block_barrier_waits_pass_the_time_left`).
            "block_barrier_wait_for" | "block_barrier_wait_until" => &[
                "cvta.to.shared.u64",
                "mbarrier.arrive.shared.b64",
                "mbarrier.test_wait.shared.b64",
                "mbarrier.try_wait.shared.b64",
                "mov.u64 %globaltimer",
            ],
            "block_barrier_wait_parity_for" | "block_barrier_wait_parity_until" => &[
                "cvta.to.shared.u64",
                "mbarrier.test_wait.parity.shared.b64",
                "mbarrier.try_wait.parity.shared.b64",
                "mov.u64 %globaltimer",
            ],
            // sm_90 transaction counts (PTX ISA "mbarrier.expect_tx", "mbarrier.arrive" with
            // `.expect_tx`, "mbarrier.complete_tx"): expect and complete are relaxed, the
            // arrival releases at `.cta` as a plain arrive does; libcu++'s forms.
            "block_barrier_expect_tx" => &[
                "cvta.to.shared.u64",
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
            ],
            "block_barrier_arrive_expect_tx" => &[
                "cvta.to.shared.u64",
                "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64",
            ],
            "block_barrier_complete_tx" => &[
                "cvta.to.shared.u64",
                "mbarrier.complete_tx.relaxed.cta.shared::cta.b64",
            ],
            // Global to this block's shared memory, completing on the barrier (the ISA 8.0
            // `.shared::cluster` destination; `.shared::cta` needs ISA 8.6). The source's
            // `cvta.to.global` is left out with the kernel's own global traffic.
            "bulk_copy_global_to_shared" => &[
                "cvta.to.shared.u64",
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
            ],
            "bulk_fence_proxy_async_shared" => &["fence.proxy.async.shared::cta"],
            "bulk_fence_proxy_async" => &["fence.proxy.async"],
            "dynamic_shared_memory" => &["cvta.shared.u64"],
            // See `GRID_SYNC_ARRIVAL`.
            "grid_sync" => &GRID_SYNC,
            // The same with the aligned block barrier (`bar.sync`, core's `_syncthreads`).
            "grid_sync_aligned" => &GRID_SYNC_ALIGNED,
            "block_sync_aligned" => &["bar.sync"],
            "cluster_sync" => &[
                "barrier.cluster.arrive.release",
                "barrier.cluster.wait.acquire",
            ],
            "cluster_arrive_relaxed" => &["barrier.cluster.arrive.relaxed"],
            "cluster_map_shared" => &["mapa.u64"],
            other => panic!("no oracle for {other}"),
        }),
        // CUDA's `__shfl_*_sync` (width 32); a 64-bit value moves as two 32-bit words.
        Kind::Wait if op.starts_with("shfl_") => {
            let mode = match op {
                "shfl_idx" => "idx",
                "shfl_up" => "up",
                "shfl_down" => "down",
                "shfl_xor" => "bfly",
                other => panic!("no oracle for {other}"),
            };
            let words = if bits(ty) == "b64" { 2 } else { 1 };
            vec![format!("shfl.sync.{mode}.b32"); words]
        }
        // Warp reductions and scans (device/src/warp/reduce.rs), on sm_80 and sm_90.
        Kind::Wait if is_warp_reduction(op) => warp_reduction(op, ty, true),
        // A special register: the lanes below, at or above this one.
        Kind::Wait if op.starts_with("lanemask_") => {
            vec![format!("mov.u32 %{op}")]
        }
        // The lanes naming the same object: the active mask, then a match on the address.
        Kind::Wait if op == "peers" => {
            vec![
                "activemask.b32".to_string(),
                "match.any.sync.b64".to_string(),
            ]
        }
        Kind::Wait => vec![match op {
            "sleep_ns" => "nanosleep.u32",
            "global_timer_ns" => "mov.u64 %globaltimer",
            // `clock::Instant`: the global timer, and nothing else.
            "instant_now" | "instant_elapsed" => "mov.u64 %globaltimer",
            "lane" => "mov.u32 %laneid",
            "active_mask" => "activemask.b32",
            "match_any" => "match.any.sync.b64",
            "match_any_u32" => "match.any.sync.b32",
            "match_all" => "match.all.sync.b64",
            "match_all_u32" => "match.all.sync.b32",
            "ballot" => "vote.sync.ballot.b32",
            "any" => "vote.sync.any.pred",
            "all" => "vote.sync.all.pred",
            "uni" => "vote.sync.uni.pred",
            "elect_one" => "elect.sync",
            // Not a collective: the lane number, compared with the mask's lowest bit.
            "leader" => "mov.u32 %laneid",
            _ => "bar.warp.sync",
        }
        .to_string()],
    }
}

/// Whether a golden case is a warp reduction or scan.
fn is_warp_reduction(op: &str) -> bool {
    op.starts_with("reduce_") || op.ends_with("_scan_add")
}

/// The PTX of a warp reduction or scan. With `redux` (sm_80+, PTX ISA "redux.sync": `.add`,
/// `.min`, `.max` on `.u32`/`.s32`, the bitwise ops on `.b32`), a reduction of a 32-bit
/// integer is that one instruction. Everything else is the shuffle tree: the lane number, then
/// five `shfl.sync.idx.b32` steps, each moving one 32-bit word (two for a 64-bit value).
fn warp_reduction(op: &str, ty: &str, redux: bool) -> Vec<String> {
    if redux && op.starts_with("reduce_") && matches!(ty, "u32" | "i32") {
        let r = op.trim_start_matches("reduce_");
        let t = match (r, ty) {
            ("and" | "or" | "xor", _) => "b32",
            (_, "u32") => "u32",
            _ => "s32",
        };
        return vec![format!("redux.sync.{r}.{t}")];
    }
    let words = if bits(ty) == "b64" { 2 } else { 1 };
    let mut v = vec!["mov.u32 %laneid".to_string()];
    v.extend(vec!["shfl.sync.idx.b32".to_string(); 5 * words]);
    v
}

/// `BlockBarrier::arrive_n` on sm_80, which has no count on a completing arrival (libcu++'s
/// `__arrive_sm80`): `.noComplete` for `n - 1`, then a plain arrival.
fn arrive_n_sm80() -> Vec<String> {
    set(&[
        "cvta.to.shared.u64",
        "mbarrier.arrive.noComplete.shared.b64",
        "mbarrier.arrive.shared.b64",
    ])
}

/// The special registers an `index_*` case reads (device/src/index.rs), one `mov.u32` each,
/// from CUDA's definition of each value (x fastest): `thread_rank` is `(tid.z * ntid.y +
/// tid.y) * ntid.x + tid.x`, a global index `ctaid * ntid + tid`, and so on.
fn index_registers(op: &str) -> Vec<String> {
    let f = &op["index_".len()..];
    let each = |reg: &str, dims: &str| -> Vec<String> {
        dims.chars().map(|d| format!("{reg}.{d}")).collect()
    };
    let regs: Vec<String> = match f {
        "thread_rank" | "warp_rank" => [each("%tid", "xyz"), each("%ntid", "xy")].concat(),
        "block_size" | "warp_count" => each("%ntid", "xyz"),
        "block_rank" => [each("%ctaid", "xyz"), each("%nctaid", "xy")].concat(),
        "block_count" => each("%nctaid", "xyz"),
        "global_rank" => [
            each("%ctaid", "xyz"),
            each("%nctaid", "xy"),
            each("%ntid", "xyz"),
            each("%tid", "xyz"),
        ]
        .concat(),
        "global_thread_count" => [each("%nctaid", "xyz"), each("%ntid", "xyz")].concat(),
        // The rank and the count.
        "grid_stride" => ["%ctaid", "%nctaid", "%ntid", "%tid"]
            .iter()
            .flat_map(|r| each(r, "xyz"))
            .collect(),
        _ => {
            let (what, d) = f
                .rsplit_once('_')
                .unwrap_or_else(|| panic!("no oracle for {op}"));
            match what {
                "thread_idx" => each("%tid", d),
                "block_idx" => each("%ctaid", d),
                "block_dim" => each("%ntid", d),
                "grid_dim" => each("%nctaid", d),
                "global_thread" => [each("%ctaid", d), each("%ntid", d), each("%tid", d)].concat(),
                _ => panic!("no oracle for {op}"),
            }
        }
    };
    let movs: Vec<String> = regs.iter().map(|r| format!("mov.u32 {r}")).collect();
    set(&movs.iter().map(|m| m.as_str()).collect::<Vec<_>>())
}

/// The instruction set of a primitive's operation at scope `s` (derived from each
/// primitive's documented algorithm, not from its code).
fn primitive(op: &str, s: &str) -> Vec<String> {
    let f = |x: &str| x.replace("S", s);
    // Barrier (device/src/barrier.rs), one u64: an arrival is an `atom.add.acq_rel` whose carry
    // flips the phase bit, and the arrival that flipped it restarts the counter with a relaxed
    // add; waiters poll the phase bit with `ld.acquire`. The completion step and the drop load
    // the word and add their arrival by CAS, or, when last, flip and restart with one add.
    let arrive = ["atom.acq_rel.S.add.u64", "atom.relaxed.S.add.u64"];
    let wait_phase = ["ld.acquire.S.b64", "nanosleep.u32"];
    let knowing_last = [
        "ld.acquire.S.b64",
        "atom.acq_rel.S.cas.b64",
        "atom.acq_rel.S.add.u64",
    ];
    let wait = ["ld.acquire.S.b32", "nanosleep.u32"];
    // Aggregation per object: the lanes naming the same address (device/src/warp.rs, peers).
    let warp = [
        "activemask.b32",
        "match.any.sync.b64",
        "bar.warp.sync",
        "mov.u32 %laneid",
    ];
    // A timed wait: `poll`'s instructions, the pauses, and the clock.
    let timed = |poll: &[&'static str]| -> Vec<&'static str> {
        [poll, &["nanosleep.u32", "mov.u64 %globaltimer"]].concat()
    };
    let list: Vec<&str> = match op {
        // Ticket from `atom.add.relaxed`; wait on `serving` with acquire; serve the next.
        "ticket_lock" => vec![
            "atom.relaxed.S.add.u32",
            "ld.acquire.S.b32",
            "nanosleep.u32",
            "st.release.S.b32",
        ],
        "ticket_try_lock" => vec![
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b32",
            "st.release.S.b32",
        ],
        // Counting (device/src/semaphore.rs): the count loaded, `atom.cas.acquire` only when
        // positive; waiting with `Elapsed` (the default: `%globaltimer`, `nanosleep`); release
        // by `red.release.add` (no old value in a release build).
        "semaphore_acquire" => vec![
            "ld.relaxed.S.b32",
            "atom.acquire.S.cas.b32",
            "nanosleep.u32",
            "mov.u64 %globaltimer",
        ],
        "semaphore_try_acquire" => vec!["ld.relaxed.S.b32", "atom.acquire.S.cas.b32"],
        "semaphore_release" => vec!["red.release.S.add.u32"],
        // Binary (device/src/semaphore/one_unit.rs): `atom.exch.acquire` of 0 takes the unit,
        // waiters poll with relaxed loads (`Elapsed`), `st.release` of 1 gives it back. At
        // `.sys` the first attempt loads before it exchanges (the set is the same for
        // `acquire`, which polls with that load anyway).
        "binary_semaphore_acquire" => vec![
            "atom.acquire.S.exch.b32",
            "ld.relaxed.S.b32",
            "nanosleep.u32",
            "mov.u64 %globaltimer",
        ],
        // With `NanoSleep` instead: the same, without the clock.
        "binary_semaphore_acquire_nanosleep" => vec![
            "atom.acquire.S.exch.b32",
            "ld.relaxed.S.b32",
            "nanosleep.u32",
        ],
        "binary_semaphore_try_acquire" if s == "sys" => {
            vec!["ld.relaxed.S.b32", "atom.acquire.S.exch.b32"]
        }
        "binary_semaphore_try_acquire" => vec!["atom.acquire.S.exch.b32"],
        "binary_semaphore_release" => vec!["st.release.S.b32"],
        "latch_count_down" => vec!["atom.release.S.add.u32"],
        "latch_try_wait" => vec!["ld.acquire.S.b32"],
        "latch_wait" | "atomic_wait" => wait.to_vec(),
        // Timed waits (device/src/wait.rs): the polls of the untimed form, `B`'s pauses
        // (`nanosleep`), and `%globaltimer` for the deadline.
        "atomic_wait_until_for"
        | "atomic_wait_until_deadline"
        | "poll_until_for"
        | "poll_until_deadline"
        | "latch_wait_for"
        | "latch_wait_until" => timed(&wait),
        "latch_count_down_one" => vec!["atom.release.S.add.u32"],
        "barrier_wait_for" | "barrier_wait_until" => [&arrive[..], &timed(&wait_phase)].concat(),
        "barrier_wait_parity_for" | "barrier_wait_parity_until" => timed(&wait_phase),
        // The counting semaphore's attempt is its load and CAS; the binary one's first attempt
        // is the exchange (a load first at `.sys`), its polls are loads.
        "semaphore_try_acquire_for" | "semaphore_try_acquire_until" => {
            timed(&["ld.relaxed.S.b32", "atom.acquire.S.cas.b32"])
        }
        "binary_semaphore_try_acquire_for" | "binary_semaphore_try_acquire_until" => {
            timed(&["atom.acquire.S.exch.b32", "ld.relaxed.S.b32"])
        }
        // Not warp-aggregated: the CAS is the attempt; the guard's drop releases. The drop's
        // turn-passing barriers stay in the text (the compiler cannot see through the timed
        // loop that the guard's group is this lane alone) but are not executed for it.
        "mutex_try_lock_for" | "mutex_try_lock_until" => timed(&[
            "atom.acquire.S.cas.b32",
            "mov.u32 %laneid",
            "st.release.S.b32",
            "bar.warp.sync",
        ]),
        "ticket_try_lock_for" | "ticket_try_lock_until" => timed(&[
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b32",
            "st.release.S.b32",
        ]),
        // The reader-writer lock (device/src/rwlock.rs, phase-fair tickets over four words),
        // every lane on its own, no warp instruction. A reader arrives with `atom.acquire.add`,
        // polls the writer bits with `ld.acquire` while a writer is present, and leaves with
        // `red.release.add` on the departures. (The data is the kernel's own `.global` traffic
        // here: `p` is a parameter.)
        "rwlock_read" => vec![
            "atom.acquire.S.add.u32",
            "ld.acquire.S.b32",
            "nanosleep.u32",
            "red.release.S.add.u32",
        ],
        // A writer takes a ticket and announces itself with relaxed adds, polls the tickets
        // served and the departures with `ld.acquire`, and leaves with `red.release.and` (its
        // bits) and `red.release.add` (the next ticket).
        "rwlock_write" => vec![
            "atom.relaxed.S.add.u32",
            "ld.acquire.S.b32",
            "nanosleep.u32",
            "red.release.S.and.b32",
            "red.release.S.add.u32",
        ],
        // An arrival by CAS while no writer bits (a relaxed look first); the guard's departure.
        "rwlock_try_read" => vec![
            "ld.relaxed.S.b32",
            "atom.acquire.S.cas.b32",
            "red.release.S.add.u32",
        ],
        // The served ticket and departures (acquire), the arrivals (relaxed), a CAS for the
        // ticket and one for the bits; on a lost race the empty phase (a relaxed add, then
        // the unlock's two releasing reductions), which the guard's drop also emits.
        "rwlock_try_write" => vec![
            "ld.acquire.S.b32",
            "ld.relaxed.S.b32",
            "atom.relaxed.S.cas.b32",
            "atom.relaxed.S.add.u32",
            "red.release.S.and.b32",
            "red.release.S.add.u32",
        ],
        // The blocking arrival, polls, and on timeout the withdrawal by CAS; the guard's
        // departure.
        "rwlock_try_read_for" | "rwlock_try_read_until" => timed(&[
            "atom.acquire.S.add.u32",
            "ld.acquire.S.b32",
            "atom.acquire.S.cas.b32",
            "red.release.S.add.u32",
        ]),
        // A ticket only when none is queued (load, CAS), the announcement (relaxed add), polls
        // of the departures; the unlock (or giving up) releases both words.
        "rwlock_try_write_for" | "rwlock_try_write_until" => timed(&[
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b32",
            "atom.relaxed.S.add.u32",
            "red.release.S.and.b32",
            "red.release.S.add.u32",
        ]),
        // The turn queue (device/src/queue.rs): 64-bit tickets by `atom.relaxed.add` (per warp
        // group one add, handed out by shuffle), the slot's turn polled with `ld.acquire`, the
        // value written or read (the kernel's own `.global` traffic here), the next turn
        // `st.release`.
        "queue_push" => vec![
            "activemask.b32",
            "match.any.sync.b64",
            "mov.u32 %laneid",
            "atom.relaxed.S.add.u64",
            "shfl.sync.idx.b32",
            "ld.acquire.S.b32",
            "nanosleep.u32",
            "st.release.S.b32",
        ],
        "queue_pop" => vec![
            "activemask.b32",
            "match.any.sync.b64",
            "mov.u32 %laneid",
            "atom.relaxed.S.add.u64",
            "shfl.sync.idx.b32",
            "ld.acquire.S.b32",
            "nanosleep.u32",
            "st.release.S.b32",
        ],
        // The try forms: the ticket (relaxed load), its turn (acquire), a CAS to take it.
        "queue_try_push" => vec![
            "ld.relaxed.S.b64",
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b64",
            "st.release.S.b32",
        ],
        "queue_try_pop" => vec![
            "ld.relaxed.S.b64",
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b64",
            "st.release.S.b32",
        ],
        "queue_push_for" | "queue_push_until" => timed(&[
            "ld.relaxed.S.b64",
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b64",
            "st.release.S.b32",
        ]),
        "queue_pop_for" | "queue_pop_until" => timed(&[
            "ld.relaxed.S.b64",
            "ld.acquire.S.b32",
            "atom.relaxed.S.cas.b64",
            "st.release.S.b32",
        ]),
        // A stored completion: every arrival knows whether it is last (the CAS path), as
        // `arrive_and_wait_with` and `arrive_and_drop` do; the barrier is written in place
        // first (`.global` stores: the kernel's own traffic).
        // The completion itself, `*out = *v` through the pointers the barrier holds (loaded
        // from memory, so generic addresses): `ld.b32`, `st.b32`.
        "barrier_completion_arrive" | "barrier_completion_arrive_and_drop" => {
            [&knowing_last[..], &["ld.b32", "st.b32"]].concat()
        }
        "barrier_completion_arrive_and_wait" => [
            &knowing_last[..],
            &wait_phase[..],
            &warp[..],
            &["ld.b32", "st.b32"],
        ]
        .concat(),
        "latch_arrive_and_wait" => [&warp[..], &wait[..], &["atom.acq_rel.S.add.u32"]].concat(),
        "barrier_arrive" => arrive.to_vec(),
        "barrier_arrive_then_wait" => [&arrive[..], &wait_phase[..]].concat(),
        "barrier_arrive_and_wait" => [&arrive[..], &wait_phase[..], &warp[..]].concat(),
        "barrier_arrive_and_wait_with" => [&knowing_last[..], &wait_phase[..], &warp[..]].concat(),
        "barrier_arrive_and_drop" => knowing_last.to_vec(),
        // libcu++'s `arrive(update)`, parity waits, and in-place init (device/tests/barrier.rs).
        "barrier_arrive_n" => arrive.to_vec(),
        "barrier_wait_parity" => wait_phase.to_vec(),
        "barrier_try_wait_parity" => vec!["ld.acquire.S.b64"],
        "latch_init" | "semaphore_init" => vec!["st.relaxed.S.b32"],
        other => panic!("no oracle for {other}"),
    };
    let owned: Vec<String> = list.iter().map(|x| f(x)).collect();
    set(&owned.iter().map(|x| x.as_str()).collect::<Vec<_>>())
}

/// `insn` with the state space `space` after its scope: `atom.relaxed.gpu.add.u32` ->
/// `atom.relaxed.gpu.global.add.u32`. Fences have no state space.
fn with_space(insn: &str, space: &str) -> String {
    if !["ld.", "st.", "atom.", "red."]
        .iter()
        .any(|p| insn.starts_with(p))
    {
        return insn.to_string();
    }
    let parts: Vec<&str> = insn.split('.').collect();
    // opcode, .sem, .scope, then the rest.
    let (head, rest) = parts.split_at(3);
    format!("{}.{space}.{}", head.join("."), rest.join("."))
}

/// Sorted, without duplicates.
fn set(items: &[&str]) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = items.iter().map(|s| s.to_string()).collect();
    set.into_iter().collect()
}

/// What is compared for a kernel: the instruction sequence, or for the lock (whose branches
/// LLVM duplicates) the set of instructions.
fn normalize(kind: Kind, insns: &[String]) -> Vec<String> {
    if is_set(kind) {
        set(&insns.iter().map(|s| s.as_str()).collect::<Vec<_>>())
    } else {
        insns.to_vec()
    }
}

/// The memory-ordering instructions of each kernel: every `ld`/`st`/`atom`/`red`/`fence`/
/// `membar`/`bar`/`barrier` opcode, minus the kernel's own parameter and result traffic (`.param`, `.global`).
fn kernels(ptx: &str) -> BTreeMap<String, Vec<String>> {
    ptx_sync_testkit::ptx::kernels(ptx, statement)
}

/// Records one PTX statement's memory-ordering opcode (and special registers it reads).
fn statement(line: &str, insns: &mut Vec<String>) {
    {
        let opcode = ptx_sync_testkit::ptx::opcode(line);
        let memory = [
            "ld.",
            "st.",
            "atom.",
            "red.",
            "fence.",
            "membar.",
            "bar.",
            "barrier.",
            "nanosleep.",
            "activemask.",
            "match.",
            "vote.",
            "shfl.",
            "elect.",
            "mbarrier.",
            "cvta.",
            "mapa.",
            "cp.",
            "redux.",
        ]
        .iter()
        .any(|p| opcode.starts_with(p));
        for special in [
            "%laneid",
            "%globaltimer",
            "%lanemask_lt",
            "%lanemask_le",
            "%lanemask_eq",
            "%lanemask_ge",
            "%lanemask_gt",
        ] {
            if line.contains(special) {
                insns.push(format!("{opcode} {special}"));
            }
        }
        // A thread's position (device/src/index.rs), matched as a whole operand: `%tid.x` is
        // also the end of `%ntid.x`.
        for operand in line.split(|c: char| c == ',' || c == ';' || c.is_whitespace()) {
            let position = ["%tid.", "%ntid.", "%ctaid.", "%nctaid."].iter().any(|r| {
                operand
                    .strip_prefix(r)
                    .is_some_and(|d| ["x", "y", "z"].contains(&d))
            });
            if position {
                insns.push(format!("{opcode} {operand}"));
            }
        }
        // A bulk copy names `.global` as its source: it is the operation under test. So is a
        // `.global` access with a memory order (`ld.relaxed.gpu.global`, `atom.*.global`,
        // `red.*.global`): the kernel's own traffic is weak (`ld.global`, `st.global`).
        let ordered = [".relaxed.", ".acquire.", ".release.", ".acq_rel."]
            .iter()
            .any(|q| opcode.contains(q))
            || opcode.starts_with("atom.")
            || opcode.starts_with("red.");
        let own_traffic = !opcode.starts_with("cp.")
            && (opcode.contains(".param") || (opcode.contains(".global") && !ordered));
        if memory && !own_traffic {
            insns.push(opcode.to_string());
        }
    }
}

fn build(arch: xtask::Arch) -> (std::path::PathBuf, BTreeMap<String, Vec<String>>) {
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/golden"), arch)
        .unwrap_or_else(|e| panic!("building the golden kernels for {arch} failed:\n{e}"));
    let found = kernels(&std::fs::read_to_string(&ptx_path).unwrap());
    (ptx_path, found)
}

#[test]
fn every_operation_emits_its_exact_ptx() {
    let (ptx_path, found) = build(xtask::Arch::Sm90);
    let mut failures = Vec::new();
    let all = cases();
    for (name, op, order, scope, ty) in &all {
        let want = expected(op.name, op.kind, order, scope, ty);
        match found.get(name).map(|got| normalize(op.kind, got)) {
            None => failures.push(format!(
                "{name}: kernel missing from {}",
                ptx_path.display()
            )),
            Some(got) if got != want => {
                failures.push(format!("{name}: emitted {got:?}, expected {want:?}"))
            }
            Some(_) => {}
        }
    }
    let extra: Vec<_> = found
        .keys()
        .filter(|k| !all.iter().any(|c| &c.0 == *k))
        .collect();
    assert!(extra.is_empty(), "kernels not in the case table: {extra:?}");
    assert!(
        failures.is_empty(),
        "{} of {} golden cases wrong:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
    println!(
        "{} golden cases checked in {}",
        all.len(),
        ptx_path.display()
    );
}

#[test]
fn pre_sm90_builds_leave_out_only_the_sm90_cases() {
    let (_, found) = build(xtask::Arch::Sm80);
    for (name, op, order, scope, ty) in cases() {
        let present = found.contains_key(&name);
        assert_eq!(
            present,
            !needs_sm90(op.name, scope, ty),
            "{name}: present on sm_80 = {present}"
        );
        if present {
            let want = match op.name {
                "block_barrier_arrive_n" => arrive_n_sm80(),
                _ => expected(op.name, op.kind, &order, scope, ty),
            };
            assert_eq!(normalize(op.kind, &found[&name]), want, "{name} on sm_80");
        }
    }
}

#[test]
fn below_sm80_warp_reductions_are_the_shuffle_tree() {
    // sm_75 has no `redux.sync`: every reduction (the 32-bit integers included) and every
    // scan is the shuffle tree there, and nothing else.
    let (_, found) = build(xtask::Arch::Sm75);
    let mut checked = 0;
    for (name, op, order, scope, ty) in cases() {
        if !is_warp_reduction(op.name) {
            continue;
        }
        let got = found
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: missing from the sm_75 build"));
        assert_eq!(
            normalize(op.kind, got),
            warp_reduction(op.name, ty, false),
            "{name} ({order}, {scope}) on sm_75"
        );
        checked += 1;
    }
    // reduce_add and the two scans on 6 types, the other five reductions on 4.
    assert_eq!(
        checked,
        3 * 6 + 5 * 4,
        "warp reduction and scan kernels checked"
    );
}

#[test]
fn warp_reductions_pass_the_mask_and_cudas_width_32() {
    // The operands the instruction lists above cannot see: every shuffle of the tree is
    // `shfl.sync.idx.b32 d, a, src, 0x1f, mask` (CUDA's `__shfl_sync`, width 32: one segment
    // of 32 lanes), every `redux.sync` is `d, value, mask`, and both take the caller's mask,
    // the kernel's first parameter (`p`), as the same register in every one of them.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/golden"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the golden kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let (mut shuffles, mut reduxes) = (0, 0);
    for (name, op, ..) in cases() {
        if !is_warp_reduction(op.name) {
            continue;
        }
        let lines = entry_lines(&ptx, &name);
        let mut masks = std::collections::BTreeSet::new();
        for st in lines.iter().flat_map(|l| l.split(';')).map(str::trim) {
            let Some((opcode, operands)) = st.split_once(char::is_whitespace) else {
                continue;
            };
            let operands: Vec<&str> = operands.split(',').map(str::trim).collect();
            if opcode.starts_with("shfl.") {
                assert_eq!(opcode, "shfl.sync.idx.b32", "{name}: `{st}`");
                assert_eq!(operands.len(), 5, "{name}: `{st}`: d, a, b, c, membermask");
                assert_eq!(
                    operands[3], "0x1f",
                    "{name}: `{st}`: the clamp/segment operand"
                );
                masks.insert(operands[4].to_string());
                shuffles += 1;
            } else if opcode.starts_with("redux.") {
                assert_eq!(operands.len(), 3, "{name}: `{st}`: d, a, membermask");
                masks.insert(operands[2].to_string());
                reduxes += 1;
            }
        }
        assert_eq!(
            masks.len(),
            1,
            "{name}: the mask operands {masks:?} are not one register"
        );
    }
    // The tree: 5 shuffles per 32-bit word; on sm_90 the 32-bit integer reductions are
    // `redux.sync` (2 types x 6 reductions).
    let words: usize = cases()
        .iter()
        .filter(|c| is_warp_reduction(c.1.name))
        .filter(|c| !(c.1.name.starts_with("reduce_") && matches!(c.4, "u32" | "i32")))
        .map(|c| if bits(c.4) == "b64" { 2 } else { 1 })
        .sum();
    assert_eq!((shuffles, reduxes), (5 * words, 12));
}

#[test]
fn the_oracle_matches_the_readme_table() {
    // Spot checks of the oracle itself, so it cannot drift from the documented mapping.
    let e = expected;
    assert_eq!(
        e("load", Kind::Load, "SeqCst", "Gpu", "u32"),
        ["fence.sc.gpu", "ld.acquire.gpu.b32"]
    );
    assert_eq!(
        e("store", Kind::Store, "SeqCst", "Sys", "u64"),
        ["fence.sc.sys", "st.relaxed.sys.b64"]
    );
    assert_eq!(
        e("fetch_add", Kind::Rmw, "AcqRel", "Cta", "i32"),
        ["atom.acq_rel.cta.add.s32"]
    );
    assert_eq!(
        e("fetch_max", Kind::Rmw, "Relaxed", "Gpu", "i64"),
        ["atom.relaxed.gpu.max.s64"]
    );
    assert_eq!(
        e(
            "compare_exchange",
            Kind::Cas,
            "Release_Acquire",
            "Gpu",
            "u32"
        ),
        ["atom.acq_rel.gpu.cas.b32"]
    );
    assert_eq!(
        e("red_add", Kind::Red, "SeqCst", "Gpu", "f32"),
        ["fence.sc.gpu", "red.relaxed.gpu.add.f32"]
    );
    assert_eq!(
        e("fence", Kind::Fence, "Release", "Cluster", "none"),
        ["fence.acq_rel.cluster"]
    );
    // usize/isize are 64-bit; bool and the flag are u32 words; pointers .b64.
    assert_eq!(
        e("fetch_min", Kind::Rmw, "Relaxed", "Gpu", "isize"),
        ["atom.relaxed.gpu.min.s64"]
    );
    assert_eq!(
        e("fetch_add", Kind::Rmw, "Release", "Sys", "usize"),
        ["atom.release.sys.add.u64"]
    );
    assert_eq!(
        e("fetch_not", Kind::Rmw, "AcqRel", "Cta", "bool"),
        ["atom.acq_rel.cta.xor.b32"]
    );
    assert_eq!(
        e("test_and_set", Kind::Rmw, "SeqCst", "Gpu", "flag"),
        ["fence.sc.gpu", "atom.acquire.gpu.exch.b32"]
    );
    assert_eq!(
        e("clear", Kind::Store, "Release", "Gpu", "flag"),
        ["st.release.gpu.b32"]
    );
    assert_eq!(
        e("store", Kind::Store, "SeqCst", "Gpu", "ptr"),
        ["fence.sc.gpu", "st.relaxed.gpu.b64"]
    );
    // fetch_nand: a relaxed first guess, the order on the CAS (as a set).
    assert_eq!(
        e("fetch_nand", Kind::RmwLoop, "SeqCst", "Gpu", "u32"),
        [
            "atom.acquire.gpu.cas.b32",
            "fence.sc.gpu",
            "ld.relaxed.gpu.b32"
        ]
    );
    assert_eq!(
        e(
            "fetch_update",
            Kind::Update,
            "Release_Acquire",
            "Cta",
            "ptr"
        ),
        ["atom.acq_rel.cta.cas.b64", "ld.acquire.cta.b64"]
    );
    assert_eq!(
        e("wait", Kind::AtomicWait, "Acquire", "Sys", "f64"),
        ["ld.acquire.sys.b64", "nanosleep.u32"]
    );
    assert!(e("notify_one", Kind::Notify, "none", "Gpu", "flag").is_empty());
    // 8/16-bit types: native loads and `cas.b16`; the other RMWs loop on the containing word.
    assert_eq!(
        e("load", Kind::Load, "SeqCst", "Cta", "u8"),
        ["fence.sc.cta", "ld.acquire.cta.b8"]
    );
    assert_eq!(
        e(
            "compare_exchange",
            Kind::Cas,
            "Release_Relaxed",
            "Gpu",
            "i16"
        ),
        ["atom.release.gpu.cas.b16"]
    );
    assert_eq!(
        e("fetch_add", Kind::WordLoop, "AcqRel", "Gpu", "u8"),
        ["atom.acq_rel.gpu.cas.b32", "ld.relaxed.gpu.b32"]
    );
    assert_eq!(
        e(
            "compare_exchange",
            Kind::WordCas,
            "Release_Acquire",
            "Sys",
            "i8"
        ),
        ["atom.acq_rel.sys.cas.b32", "ld.acquire.sys.b32"]
    );
    assert_eq!(
        e("update", Kind::Update, "AcqRel_Relaxed", "Gpu", "f16"),
        ["atom.acq_rel.gpu.cas.b32", "ld.relaxed.gpu.b32"]
    );
    // Half adds carry the `.noftz` PTX requires; float min/max loop on the value itself.
    assert_eq!(
        e("fetch_add", Kind::Rmw, "SeqCst", "Gpu", "bf16x2"),
        ["fence.sc.gpu", "atom.acquire.gpu.add.noftz.bf16x2"]
    );
    assert_eq!(
        e("fetch_min", Kind::WordLoop, "Relaxed", "Cta", "f64"),
        ["atom.relaxed.cta.cas.b64", "ld.relaxed.cta.b64"]
    );
    // sm_90 vectors: `f32` lanes add only (no `.noftz` in ISA 8.4); half lanes as packed pairs.
    assert_eq!(
        e("red_add", Kind::Red, "Release", "Gpu", "v4f32"),
        ["red.release.gpu.add.v4.f32"]
    );
    assert_eq!(
        e("fetch_max", Kind::Rmw, "Acquire", "Sys", "v8bf16"),
        ["atom.acquire.sys.max.noftz.v4.bf16x2"]
    );
}

#[test]
fn convergence_regression_kernel_has_only_non_aligned_barriers() {
    // The kernel shape that hung under rustc 1.95 with `bar.sync` (tests/kernels/src/
    // convergence.rs). LLVM still duplicates its barriers (so the guard is needed), and every
    // copy must be the non-`.aligned` `barrier.sync`.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/kernels"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the test kernels failed:\n{e}"));
    let found = kernels(&std::fs::read_to_string(&ptx_path).unwrap());
    let insns = &found["convergence_regression"];
    let barriers: Vec<_> = insns.iter().filter(|i| i.starts_with("bar")).collect();
    assert!(!barriers.is_empty(), "no barrier in convergence_regression");
    assert!(
        barriers.iter().all(|b| *b == "barrier.sync"),
        "aligned barrier in convergence_regression: {barriers:?}"
    );
}

#[test]
fn syncthreads_shape_has_no_barrier_in_a_divergent_arm() {
    // tests/kernels/src/convergence.rs: `_syncthreads()` (`.aligned` `bar.sync`) after each
    // `if t == 0 { .. }` in a loop. Every barrier must start a block that both arms of that
    // `if` reach (a label right before it): a barrier reached by falling through one arm is a
    // copy the other arm does not execute, which hangs with `.aligned`. rustc 1.95 without the
    // builder's -JumpThreading emits exactly that; 1.99 unrolls the loop (more barriers, each
    // at a join point), which is fine.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/kernels"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the test kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let lines = entry_lines(&ptx, "convergence_syncthreads_shape");
    let mut barriers = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("bar.sync") || line.starts_with("barrier.sync") {
            barriers += 1;
            let before = lines[i - 1];
            assert!(
                before.ends_with(':'),
                "convergence_syncthreads_shape: `{line}` follows `{before}`, not a join point \
                 (a barrier copied into one arm of a divergent branch):\n{}",
                lines.join("\n")
            );
        }
    }
    assert!(
        barriers >= 2 && barriers % 2 == 0,
        "convergence_syncthreads_shape: {barriers} barriers"
    );
}

#[test]
fn shared_accessors_use_the_shared_state_space() {
    // tests/kernels/src/shared.rs: `Shared<T>` reads and writes are `ld/st.shared` on 32-bit
    // `.shared` addresses (what nvcc emits for `__shared__` arrays), and the conversions are
    // the `cvta` forms.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/kernels"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the test kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let lines = entry_lines(&ptx, "shared_round_trip");
    for want in [
        "st.shared.b32 [%r",
        "st.shared.b64 [%r",
        "ld.shared.b32 %r",
        "ld.shared.b64 %rd",
        "mov.u32 %r",
        "cvta.to.shared.u64",
        "cvta.shared.u64",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(want)),
            "shared_round_trip has no `{want}`:\n{}",
            lines.join("\n")
        );
    }
    assert!(
        lines.iter().any(|l| l.contains("ptx_sync_dynamic_smem")),
        "Shared::dynamic() does not name the dynamic shared array"
    );
}

#[test]
fn shuffles_pass_cudas_width_32_operands() {
    // `__shfl_*_sync(mask, v, x)` with the default width 32 passes `c` = 0x1f (clamp at lane
    // 31, one segment) to idx, down and bfly, and `c` = 0 to up (its bound is lane 0). A wrong
    // `c` splits the warp into segments or lets `up` read past lane 0, and the instruction
    // counts above cannot see it: check the operands of every shuffle kernel.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/golden"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the golden kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let mut checked = 0;
    for (name, op, ..) in cases() {
        let (mode, c) = match op.name {
            "shfl_idx" => ("idx", "0x1f"),
            "shfl_up" => ("up", "0"),
            "shfl_down" => ("down", "0x1f"),
            "shfl_xor" => ("bfly", "0x1f"),
            _ => continue,
        };
        let lines = entry_lines(&ptx, &name);
        let shuffles: Vec<&str> = lines
            .iter()
            .flat_map(|l| l.split(';'))
            .map(|l| l.trim())
            .filter(|l| l.starts_with("shfl."))
            .collect();
        assert!(!shuffles.is_empty(), "{name}: no shuffle");
        for s in shuffles {
            let (opcode, operands) = s.split_once(char::is_whitespace).unwrap();
            let operands: Vec<&str> = operands.split(',').map(str::trim).collect();
            assert_eq!(opcode, format!("shfl.sync.{mode}.b32"), "{name}: `{s}`");
            assert_eq!(operands.len(), 5, "{name}: `{s}`: d, a, b, c, membermask");
            assert_eq!(operands[3], c, "{name}: `{s}`: the clamp/segment operand");
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        4 * (3 + 2 * 3),
        "shuffles checked (6 types, 64-bit ones twice)"
    );
}

#[test]
fn bulk_copy_passes_shared_addresses_and_the_byte_count() {
    // `cp.async.bulk.shared::cluster.global...` takes [dst], [src], size, [mbar]: dst and the
    // barrier as 32-bit `.shared` addresses (`%r`), the source as a 64-bit global address
    // (`%rd`, after `cvta.to.global`), the size in a 32-bit register. The instruction set above
    // cannot see a barrier passed as a generic address (undefined in the `.shared::cluster`
    // window) or a swapped operand: check the operands.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/golden"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the golden kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let (name, ..) = cases()
        .into_iter()
        .find(|c| c.1.name == "bulk_copy_global_to_shared")
        .expect("no bulk copy case");
    let lines = entry_lines(&ptx, &name);
    let stmts: Vec<&str> = lines
        .iter()
        .flat_map(|l| l.split(';'))
        .map(|l| l.trim().trim_start_matches('{').trim())
        .collect();
    let copies: Vec<&&str> = stmts.iter().filter(|s| s.starts_with("cp.")).collect();
    assert_eq!(copies.len(), 1, "{name}: {copies:?}");
    let (opcode, operands) = copies[0].split_once(char::is_whitespace).unwrap();
    assert_eq!(
        opcode,
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
    );
    let ops: Vec<&str> = operands.split(',').map(str::trim).collect();
    assert_eq!(ops.len(), 4, "{name}: `{}`", copies[0]);
    assert!(
        ops[0].starts_with("[%r") && !ops[0].starts_with("[%rd"),
        "dst: `{}`",
        copies[0]
    );
    assert_eq!(ops[1], "[g]", "src: `{}`", copies[0]);
    assert!(
        ops[2].starts_with("%r") && !ops[2].starts_with("%rd"),
        "size: `{}`",
        copies[0]
    );
    assert!(
        ops[3].starts_with("[%r") && !ops[3].starts_with("[%rd"),
        "mbar: `{}`",
        copies[0]
    );
    assert!(
        stmts.iter().any(|s| s.starts_with("cvta.to.global.u64 g,")),
        "{name}: the source is not converted to a global address:\n{}",
        lines.join("\n")
    );
}

#[test]
fn the_state_space_oracle_puts_the_space_after_the_scope() {
    // Spot checks of the state-space rows (device/src/atomic/space.rs), written out by hand.
    let e = expected;
    assert_eq!(
        e("fetch_add", Kind::Rmw, "Acquire", "Cta", "shared_u32"),
        ["atom.acquire.cta.shared::cta.add.u32"]
    );
    assert_eq!(
        e(
            "compare_exchange",
            Kind::Cas,
            "SeqCst_Relaxed",
            "Gpu",
            "global_u64"
        ),
        ["fence.sc.gpu", "atom.acquire.gpu.global.cas.b64"]
    );
    assert_eq!(
        e("load", Kind::Load, "Acquire", "Cluster", "cluster_i32"),
        [
            "mapa.shared::cluster.u32",
            "ld.acquire.cluster.shared::cluster.b32"
        ]
    );
    assert_eq!(
        e("store", Kind::Store, "SeqCst", "Sys", "shared_f64"),
        ["fence.sc.sys", "st.relaxed.sys.shared::cta.b64"]
    );
    assert_eq!(
        e("fetch_min", Kind::Rmw, "Relaxed", "Cta", "global_i64"),
        ["atom.relaxed.cta.global.min.s64"]
    );
    assert_eq!(
        e("fetch_sub", Kind::Rmw, "Release", "Gpu", "shared_f32"),
        ["atom.release.gpu.shared::cta.add.f32"]
    );
    assert_eq!(
        e("red_add", Kind::Red, "Release", "Cta", "global_i32"),
        ["red.release.cta.global.add.s32"]
    );
    // The kernel's own traffic is left out; an ordered `.global` access is not.
    let mut v = Vec::new();
    statement("st.global.b32 [%rd2], %r1", &mut v);
    statement("ld.global.nc.b32 %r1, [%rd2]", &mut v);
    statement("cvta.to.global.u64 %rd2, %rd1", &mut v);
    assert!(v.is_empty(), "{v:?}");
    statement("ld.acquire.gpu.global.b64 %rd3, [%rd2]", &mut v);
    statement("red.relaxed.cta.global.add.u32 [%rd2], %r1", &mut v);
    assert_eq!(
        v,
        [
            "ld.acquire.gpu.global.b64",
            "red.relaxed.cta.global.add.u32"
        ]
    );
}

/// Whether a golden case is a timed wait (device/src/wait.rs and its users): a `Duration`
/// (`*_for`) or an `Instant` deadline (`*_until`, `*_deadline`).
fn is_timed(op: &str) -> bool {
    op.ends_with("_for") || op.ends_with("_until") || op.ends_with("_deadline")
}

#[test]
fn timed_waits_poll_before_they_read_the_clock() {
    // A timed wait polls once before it reads `%globaltimer` (the deadline is computed only
    // after the first poll failed): so a deadline that has passed is exactly one poll, and a
    // wait that succeeds at once costs no clock read. In the kernel's text, the first poll (a
    // strong `ld`/`atom`, or the non-blocking `mbarrier.test_wait`) comes before the first
    // `%globaltimer`.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/golden"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the golden kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let mut checked = 0;
    for (name, op, ..) in cases() {
        if !is_timed(op.name) {
            continue;
        }
        let lines = entry_lines(&ptx, &name);
        let statements: Vec<&str> = lines
            .iter()
            .flat_map(|l| l.split(';'))
            .map(|l| l.trim().trim_start_matches('{').trim())
            .collect();
        let is_poll = |s: &&str| {
            if op.name.starts_with("block_barrier") {
                s.starts_with("mbarrier.test_wait")
            } else {
                (s.starts_with("ld.") || s.starts_with("atom."))
                    && !s.starts_with("ld.param")
                    && !s.starts_with("ld.global")
            }
        };
        let poll = statements.iter().position(is_poll);
        let clock = statements.iter().position(|s| s.contains("%globaltimer"));
        match (poll, clock) {
            (Some(p), Some(c)) if p < c => checked += 1,
            _ => panic!(
                "{name}: the first poll (at {poll:?}) does not come before the first clock read (at {clock:?}):\n{}",
                lines.join("\n")
            ),
        }
    }
    assert!(checked > 300, "{checked} timed golden kernels checked");
    println!("{checked} timed golden kernels poll before reading the clock");
}

#[test]
fn timed_block_barrier_waits_pass_the_time_left_as_a_suspend_hint() {
    // PTX ISA "mbarrier.test_wait / mbarrier.try_wait": `try_wait ... waitComplete, [addr],
    // state {, suspendTimeHint}` (sm_90). The timed waits pass the nanoseconds left before
    // the deadline, so the thread sleeps in hardware until the phase completes or the deadline
    // comes; without the operand the hardware's own limit applies. Every `try_wait` of the
    // timed kernels has the fourth operand, a register.
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/golden"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the golden kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let mut checked = 0;
    for (name, op, ..) in cases() {
        if !(op.name.starts_with("block_barrier_wait_") && is_timed(op.name)) {
            continue;
        }
        let lines = entry_lines(&ptx, &name);
        let waits: Vec<&str> = lines
            .iter()
            .flat_map(|l| l.split(';'))
            .map(|l| l.trim())
            .filter(|l| l.starts_with("mbarrier.try_wait"))
            .collect();
        assert!(!waits.is_empty(), "{name}: no mbarrier.try_wait");
        for w in waits {
            let operands: Vec<&str> = w
                .split_once(char::is_whitespace)
                .unwrap()
                .1
                .split(',')
                .map(str::trim)
                .collect();
            assert_eq!(
                operands.len(),
                4,
                "{name}: `{w}`: waitComplete, [addr], state, suspendTimeHint"
            );
            assert!(
                operands[3].starts_with("%r"),
                "{name}: `{w}`: the hint is a 32-bit register"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "timed BlockBarrier kernels");
}

/// The generated PTX table (device/PTX_TABLE.md): every golden case's Rust call, the file
/// that defines it, and the instruction(s) `expected` derives for it, which
/// `every_operation_emits_its_exact_ptx` checks against the PTX rustc emits. So the table is
/// what the crate emits, and a profiler's or SASS listing's instruction greps back to its call.
const PTX_TABLE: &str = "device/PTX_TABLE.md";

/// The Rust type a golden case's operation is called on (as tests/golden/build.rs spells it).
fn table_receiver(ty: &str, scope: &str) -> String {
    let vector = match ty {
        "v2f32" => Some("AtomicF32x2"),
        "v4f32" => Some("AtomicF32x4"),
        "v4f16" => Some("AtomicF16x4"),
        "v8f16" => Some("AtomicF16x8"),
        "v4bf16" => Some("AtomicBf16x4"),
        "v8bf16" => Some("AtomicBf16x8"),
        _ => None,
    };
    if let Some(v) = vector {
        return format!("{v}<{scope}>");
    }
    if let Some((space, base)) = cases::space_of(ty) {
        let handle = match space {
            "shared::cta" => "Shared",
            "global" => "Global",
            _ => "ClusterShared",
        };
        return format!("{handle}<Atomic<{}, {scope}>>", table_receiver(base, scope));
    }
    match ty {
        "bool" => format!("AtomicBool<{scope}>"),
        "flag" => format!("AtomicFlag<{scope}>"),
        "ptr" => format!("AtomicPtr<T, {scope}>"),
        "f16" => format!("Atomic<F16, {scope}>"),
        "bf16" => format!("Atomic<Bf16, {scope}>"),
        "f16x2" => format!("Atomic<F16x2, {scope}>"),
        "bf16x2" => format!("Atomic<Bf16x2, {scope}>"),
        t => format!("Atomic<{t}, {scope}>"),
    }
}

/// Whether a case is an operation of an atomic type (the others are fences, volatile
/// accesses, primitives, block/grid/cluster and warp operations).
fn is_atomic(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::Fence
            | Kind::CompilerFence
            | Kind::VolatileRead
            | Kind::VolatileWrite
            | Kind::BlockSync
            | Kind::MutexLock
            | Kind::MutexTryLock
            | Kind::Primitive
            | Kind::Block
            | Kind::Wait
    )
}

/// The device crate file that defines a case's operation.
fn table_source(op: &str, kind: Kind, ty: &str) -> &'static str {
    if is_atomic(kind) {
        if cases::space_of(ty).is_some() {
            return "device/src/atomic/space.rs";
        }
        return match ty {
            "u32" | "i32" | "u64" | "i64" | "usize" | "isize" => "device/src/atomic/int.rs",
            "f32" | "f64" => "device/src/atomic/float.rs",
            "u8" | "i8" | "u16" | "i16" => "device/src/atomic/small.rs",
            "f16" | "bf16" | "f16x2" | "bf16x2" => "device/src/atomic/half.rs",
            "u128" => "device/src/atomic/wide.rs",
            "bool" => "device/src/atomic/boolean.rs",
            "ptr" => "device/src/atomic/pointer.rs",
            "flag" => "device/src/flag.rs",
            v if v.starts_with('v') => "device/src/atomic/vector.rs",
            other => panic!("no source file for type {other}"),
        };
    }
    let prefixes: &[(&str, &str)] = &[
        ("fence", "device/src/fence.rs"),
        ("compiler_fence", "device/src/fence.rs"),
        ("read_", "device/src/volatile.rs"),
        ("write_", "device/src/volatile.rs"),
        ("block_barrier_", "device/src/block_barrier.rs"),
        ("block_sync", "device/src/block.rs"),
        ("index_", "device/src/index.rs"),
        ("dynamic_shared_memory", "device/src/shared.rs"),
        ("mutex_", "device/src/mutex.rs"),
        ("ticket_", "device/src/ticket.rs"),
        ("rwlock_", "device/src/rwlock.rs"),
        ("queue_", "device/src/queue.rs"),
        ("binary_semaphore_", "device/src/binary_semaphore.rs"),
        ("semaphore_", "device/src/semaphore.rs"),
        ("latch_", "device/src/latch.rs"),
        ("barrier_", "device/src/barrier.rs"),
        ("atomic_wait", "device/src/wait.rs"),
        ("poll_until", "device/src/wait.rs"),
        ("bulk_", "device/src/bulk.rs"),
        ("grid_", "device/src/grid.rs"),
        ("cluster_", "device/src/cluster.rs"),
        ("sleep_ns", "device/src/clock.rs"),
        ("global_timer_ns", "device/src/clock.rs"),
        ("instant_", "device/src/clock.rs"),
    ];
    const WARP: &[&str] = &[
        "lane",
        "active_mask",
        "warp_sync",
        "match_any",
        "peers",
        "match_any_u32",
        "match_all",
        "match_all_u32",
        "ballot",
        "any",
        "all",
        "uni",
        "shfl_idx",
        "shfl_up",
        "shfl_down",
        "shfl_xor",
        "elect_one",
        "leader",
        "lanemask_lt",
        "lanemask_le",
        "lanemask_eq",
        "lanemask_ge",
        "lanemask_gt",
    ];
    if WARP.contains(&op) {
        return "device/src/warp.rs";
    }
    if is_warp_reduction(op) {
        return "device/src/warp/reduce.rs";
    }
    prefixes
        .iter()
        .find(|(p, _)| op.starts_with(p))
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("no source file for operation {op}: add it to table_source"))
}

/// device/PTX_TABLE.md as the golden cases and the oracle make it.
fn render_ptx_table() -> String {
    let mut rows: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let all = cases();
    for (_, op, order, scope, ty) in &all {
        let insns = expected(op.name, op.kind, order, scope, ty);
        let call = match *scope {
            _ if is_atomic(op.kind) => format!("`{}::{}`", table_receiver(ty, scope), op.name),
            // A warp shuffle, reduction or scan of a value type.
            "none" if *ty != "none" => format!("`{}::<{ty}>`", op.name),
            "none" => format!("`{}`", op.name),
            s => format!("`{}` at `{s}`", op.name),
        };
        let order = match order.as_str() {
            "none" => "-".to_string(),
            o => o.replace('_', " / "),
        };
        let ptx = if insns.is_empty() {
            "(no instruction)".to_string()
        } else {
            insns
                .iter()
                .map(|i| format!("`{i}`"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let shape = if is_set(op.kind) { "set" } else { "sequence" };
        rows.entry(table_source(op.name, op.kind, ty))
            .or_default()
            .push(format!("| {call} | {order} | {shape} | {ptx} |"));
    }
    let mut out = String::new();
    out.push_str(
        "<!-- Generated by tests/tests/golden_ptx.rs (`render_ptx_table`) from tests/golden/cases.rs.\n     \
         Do not edit: run `cargo xtask ptx-table` after changing the cases or the oracle. -->\n\
         # The PTX of every operation\n\n\
         Every public operation of `ptx-sync` x order x scope x type, and the exact PTX it emits on\n\
         sm_90: one row per golden case. The golden test (`tests/tests/golden_ptx.rs`,\n\
         `every_operation_emits_its_exact_ptx`) builds each case as a kernel and checks that its PTX\n\
         is this row, and `the_ptx_table_is_current` fails when this file is stale. Search this file\n\
         for an instruction a profiler or `cuobjdump` shows (`atom.acq_rel.gpu.add.u32`) to find the\n\
         call and the file that emit it.\n\n\
         - *sequence*: these instructions, in this order (the memory-ordering ones: loads, stores,\n  \
         atomics, fences, barriers, warp votes and shuffles; not the kernel's own argument traffic).\n\
         - *set*: a loop (a compare-exchange loop, a lock, a wait): these instructions, each at least\n  \
         once, in the loop's order.\n\
         - Orders `A / B` are a compare-exchange's success and failure orders (or\n  \
         `fetch_update`'s set and fetch orders). `-`: the operation takes no order.\n",
    );
    out.push_str(&format!("\n{} cases.\n", all.len()));
    for (file, rows) in rows {
        out.push_str(&format!(
            "\n## {file}\n\n| call | order | shape | PTX |\n|---|---|---|---|\n"
        ));
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    out
}

/// The kinds `normalize` compares as a set of instructions.
fn is_set(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::MutexLock
            | Kind::MutexTryLock
            | Kind::Primitive
            | Kind::Block
            | Kind::RmwLoop
            | Kind::Update
            | Kind::WordLoop
            | Kind::WordCas
            | Kind::AtomicWait
    )
}

#[test]
fn the_ptx_table_is_current() {
    let path = xtask::workspace_root().join(PTX_TABLE);
    let want = render_ptx_table();
    if std::env::var_os("PTX_SYNC_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{PTX_TABLE} is stale (the golden cases or the oracle changed): run `cargo xtask ptx-table` \
         (PTX_SYNC_BLESS=1 cargo test -p ptx-sync-tests --test golden_ptx the_ptx_table_is_current) \
         and commit it"
    );
}
