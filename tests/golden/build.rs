//! Stamps one kernel per golden case (cases.rs) into $OUT_DIR/generated.rs. Each kernel calls
//! the public API exactly as a user would, so the PTX it contains is what users get.
use std::fmt::Write;

#[allow(dead_code)]
mod cases {
    include!("cases.rs");
}
use cases::*;

fn main() {
    println!("cargo:rerun-if-changed=cases.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let mut src = String::new();
    for (name, op, order, scope, ty) in cases() {
        let gate = if needs_sm90(op.name, scope, ty) {
            "#[cfg(target_feature = \"sm_90\")]\n"
        } else if op.name.starts_with("block_barrier") {
            // `mbarrier` is sm_80+.
            "#[cfg(target_feature = \"sm_80\")]\n"
        } else {
            ""
        };
        // `bool` is `AtomicBool` and `flag` `AtomicFlag` (both over a `u32` word), `ptr`
        // `AtomicPtr<u32, S>`; the others `Atomic<T, S>`.
        let a = match ty {
            // The operations without a word (fences, block, warp and clock helpers) leave it out.
            "none" => String::new(),
            "bool" => format!("AtomicBool::<{scope}>::from_ptr(p)"),
            "flag" => format!("AtomicFlag::<{scope}>::from_ptr(p)"),
            "ptr" => format!("AtomicPtr::<u32, {scope}>::from_ptr(p)"),
            // The sm_90 vector types over `[lane; N]` (cases.rs `VECTORS`).
            _ if VECTORS.contains(&ty) => {
                format!("ptx_sync::atomic::{}::<{scope}>::from_ptr(p)", vector(ty).0)
            }
            // A state-space handle (cases.rs `space_of`).
            _ if space_of(ty).is_some() => space_handle(ty, scope),
            // A scalar (`value_type` refuses any other name).
            _ => format!("Atomic::<{}, {scope}>::from_ptr(p)", value_type(ty)),
        };
        // Operations without an operand: `fetch_not`, and the flag's `test_and_set`, `clear`.
        let arg = match op.name {
            "fetch_not" | "test_and_set" | "clear" => "",
            // Every other operation takes `*v`: a mistyped name here becomes a method that
            // does not exist, which the kernel crate's build refuses.
            _ => "*v, ",
        };
        let body = match op.kind {
            // `load`, or the flag's `test`.
            Kind::Load => format!("*out = {a}.{}(Ordering::{order});", op.name),
            Kind::Store => format!("{a}.{}({arg}Ordering::{order});", op.name),
            Kind::Rmw | Kind::RmwLoop | Kind::WordLoop => {
                format!("*out = {a}.{}({arg}Ordering::{order});", op.name)
            }
            // `fetch_update`, `try_update` (closures returning `Option`), `update` (the value).
            Kind::Update => {
                let (s, f) = order.split_once('_').unwrap();
                let step = match ty {
                    "bool" => "!x",
                    "f32" | "f64" | "f16" | "bf16" | "f16x2" | "bf16x2" => "-x",
                    "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "usize"
                    | "isize" | "ptr" => "x.wrapping_add(1)",
                    other => unknown("type of an update", other),
                };
                match op.name {
                    "update" => format!(
                        "let _ = v; *out = {a}.update(Ordering::{s}, Ordering::{f}, |x| {step});"
                    ),
                    "fetch_update" | "try_update" => format!(
                        "let _ = v; *out = match {a}.{}(Ordering::{s}, Ordering::{f}, |x| Some({step})) {{ Ok(x) | Err(x) => x }};",
                        op.name
                    ),
                    other => unknown("update", other),
                }
            }
            // Timed waits: 1 us from the first failed poll (`*_for`), or until a run-time
            // deadline (`*_until`, `*_deadline`: the address of `p`, in ns).
            Kind::AtomicWait if op.name == "wait_for" => format!(
                "let _ = out; let _ = {a}.wait_for(core::time::Duration::from_micros(1), *v, Ordering::{order});"
            ),
            Kind::AtomicWait if op.name == "wait_until" => format!(
                "let _ = out; let _ = {a}.wait_until(ptx_sync::clock::Instant::from_nanos(p as usize as u64), *v, Ordering::{order});"
            ),
            Kind::AtomicWait if op.name == "wait_until_for" => format!(
                "*out = {a}.wait_until_for(core::time::Duration::from_micros(1), Ordering::{order}, |x| x == *v).unwrap_or(*v);"
            ),
            Kind::AtomicWait if op.name == "wait_until_deadline" => format!(
                "*out = {a}.wait_until_deadline(ptx_sync::clock::Instant::from_nanos(p as usize as u64), Ordering::{order}, |x| x == *v).unwrap_or(*v);"
            ),
            // `AtomicFlag::wait` returns nothing; the others the value that ended the wait.
            Kind::AtomicWait if ty == "flag" => {
                format!("let _ = out; {a}.wait(*v, Ordering::{order});")
            }
            Kind::AtomicWait => format!("*out = {a}.wait(*v, Ordering::{order});"),
            Kind::Notify => format!("let _ = (v, out); {a}.{}();", op.name),
            Kind::Cas | Kind::WordCas => {
                let (s, f) = order.split_once('_').unwrap();
                format!(
                    "*out = match {a}.{}(*v, *out, Ordering::{s}, Ordering::{f}) {{ Ok(x) | Err(x) => x }};",
                    op.name
                )
            }
            Kind::Red => format!("{a}.{}(*v, Ordering::{order});", op.name),
            Kind::Fence => format!("let _ = (p, v, out); fence::<{scope}>(Ordering::{order});"),
            Kind::CompilerFence => {
                format!("let _ = (p, v, out); compiler_fence(Ordering::{order});")
            }
            Kind::VolatileRead => format!("let _ = v; *out = volatile::{}(p);", op.name),
            Kind::VolatileWrite => format!("let _ = out; volatile::{}(p, *v);", op.name),
            Kind::BlockSync => "let _ = (p, v, out); ptx_sync::block::sync();".to_string(),
            Kind::MutexLock => {
                format!("let _ = (v, out); drop(Mutex::<u32, {scope}>::from_ptr(p.cast()).lock());")
            }
            Kind::MutexTryLock => {
                format!(
                    "let _ = (v, out); drop(Mutex::<u32, {scope}>::from_ptr(p.cast()).try_lock());"
                )
            }
            Kind::Primitive => {
                let call = match op.name {
                    "ticket_lock" => format!("drop(TicketLock::<u32, {scope}>::from_ptr(p.cast()).lock());"),
                    "ticket_try_lock" => format!("drop(TicketLock::<u32, {scope}>::from_ptr(p.cast()).try_lock());"),
                    "semaphore_acquire" => format!("Semaphore::<{scope}, 4>::from_ptr(p).acquire();"),
                    "semaphore_try_acquire" => format!("*out = Semaphore::<{scope}, 4>::from_ptr(p).try_acquire() as u32;"),
                    "semaphore_release" => format!("Semaphore::<{scope}, 4>::from_ptr(p).release(*v);"),
                    "binary_semaphore_acquire" => format!("BinarySemaphore::<{scope}>::from_ptr(p).acquire();"),
                    "binary_semaphore_acquire_nanosleep" => format!("BinarySemaphore::<{scope}, ptx_sync::NanoSleep>::from_ptr(p).acquire();"),
                    "binary_semaphore_try_acquire" => format!("*out = BinarySemaphore::<{scope}>::from_ptr(p).try_acquire() as u32;"),
                    "binary_semaphore_release" => format!("BinarySemaphore::<{scope}>::from_ptr(p).release(1);"),
                    "latch_count_down" => format!("Latch::<{scope}>::from_ptr(p).count_down_n(*v);"),
                    "latch_count_down_one" => format!("Latch::<{scope}>::from_ptr(p).count_down();"),
                    // `d`: a run-time `Duration`, `t`: a run-time `Instant` (both from `*v`).
                    "latch_wait_for" => format!("*out = Latch::<{scope}>::from_ptr(p).wait_for(d).is_ok() as u32;"),
                    "latch_wait_until" => format!("*out = Latch::<{scope}>::from_ptr(p).wait_until(t).is_ok() as u32;"),
                    "barrier_wait_for" => format!("let b = Barrier::<{scope}>::from_ptr(p.cast()); let k = b.arrive(); *out = b.wait_for(&k, d).is_ok() as u32;"),
                    "barrier_wait_until" => format!("let b = Barrier::<{scope}>::from_ptr(p.cast()); let k = b.arrive(); *out = b.wait_until(&k, t).is_ok() as u32;"),
                    "barrier_wait_parity_for" => format!("*out = Barrier::<{scope}>::from_ptr(p.cast()).wait_parity_for(*v != 0, d).is_ok() as u32;"),
                    "barrier_wait_parity_until" => format!("*out = Barrier::<{scope}>::from_ptr(p.cast()).wait_parity_until(*v != 0, t).is_ok() as u32;"),
                    "semaphore_try_acquire_for" => format!("*out = Semaphore::<{scope}, 4>::from_ptr(p).try_acquire_for(d) as u32;"),
                    "semaphore_try_acquire_until" => format!("*out = Semaphore::<{scope}, 4>::from_ptr(p).try_acquire_until(t) as u32;"),
                    "binary_semaphore_try_acquire_for" => format!("*out = BinarySemaphore::<{scope}>::from_ptr(p).try_acquire_for(d) as u32;"),
                    "binary_semaphore_try_acquire_until" => format!("*out = BinarySemaphore::<{scope}>::from_ptr(p).try_acquire_until(t) as u32;"),
                    "mutex_try_lock_for" => format!("*out = Mutex::<u32, {scope}>::from_ptr(p.cast()).try_lock_for(d).is_some() as u32;"),
                    "mutex_try_lock_until" => format!("*out = Mutex::<u32, {scope}>::from_ptr(p.cast()).try_lock_until(t).is_some() as u32;"),
                    "ticket_try_lock_for" => format!("*out = TicketLock::<u32, {scope}>::from_ptr(p.cast()).try_lock_for(d).is_some() as u32;"),
                    "ticket_try_lock_until" => format!("*out = TicketLock::<u32, {scope}>::from_ptr(p.cast()).try_lock_until(t).is_some() as u32;"),
                    // `RwLock<u32, S>` and `Queue<u32, 4, S>` at `p` (the kernel's word, viewed
                    // as the object).
                    "rwlock_read" => format!("*out = *ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).read();"),
                    "rwlock_write" => format!("*ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).write() = *v;"),
                    "rwlock_try_read" => format!("*out = ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).try_read().map_or(0, |g| *g);"),
                    "rwlock_try_write" => format!("*out = ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).try_write().is_some() as u32;"),
                    "rwlock_try_read_for" => format!("*out = ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).try_read_for(d).is_some() as u32;"),
                    "rwlock_try_read_until" => format!("*out = ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).try_read_until(t).is_some() as u32;"),
                    "rwlock_try_write_for" => format!("*out = ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).try_write_for(d).is_some() as u32;"),
                    "rwlock_try_write_until" => format!("*out = ptx_sync::RwLock::<u32, {scope}>::from_ptr(p.cast()).try_write_until(t).is_some() as u32;"),
                    "queue_push" => format!("ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).push(*v);"),
                    "queue_pop" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).pop();"),
                    "queue_try_push" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).try_push(*v).is_ok() as u32;"),
                    "queue_try_pop" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).try_pop().unwrap_or(0);"),
                    "queue_push_for" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).push_for(*v, d).is_ok() as u32;"),
                    "queue_push_until" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).push_until(*v, t).is_ok() as u32;"),
                    "queue_pop_for" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).pop_for(d).unwrap_or(0);"),
                    "queue_pop_until" => format!("*out = ptx_sync::Queue::<u32, 4, {scope}>::from_ptr(p.cast()).pop_until(t).unwrap_or(0);"),
                    "atomic_wait_until_deadline" => format!("*out = Atomic::<u32, {scope}>::from_ptr(p).wait_until_deadline(t, Ordering::Acquire, |x| x == *v).unwrap_or(0);"),
                    "poll_until_for" => format!("let a = Atomic::<u32, {scope}>::from_ptr(p); *out = ptx_sync::wait::poll_until_for::<ptx_sync::NanoSleep, u32>(d, || Some(a.load(Ordering::Acquire)).filter(|&x| x == 1)).unwrap_or(0);"),
                    "poll_until_deadline" => format!("let a = Atomic::<u32, {scope}>::from_ptr(p); *out = ptx_sync::wait::poll_until_deadline::<ptx_sync::NanoSleep, u32>(t, || Some(a.load(Ordering::Acquire)).filter(|&x| x == 1)).unwrap_or(0);"),
                    // A barrier with a stored completion, written in place (as a kernel does).
                    "barrier_completion_arrive" | "barrier_completion_arrive_and_wait" | "barrier_completion_arrive_and_drop" => {
                        let call = match op.name.trim_start_matches("barrier_completion_") {
                            "arrive" => "let _ = (*q).arrive();".to_string(),
                            other => format!("(*q).{other}();"),
                        };
                        format!("let q = p.cast::<Barrier<{scope}, ptx_sync::NanoSleep, _>>(); q.write(Barrier::<{scope}>::with_completion(2, move || *out = *v)); {call}")
                    }
                    "latch_try_wait" => format!("*out = Latch::<{scope}>::from_ptr(p).try_wait() as u32;"),
                    "latch_wait" => format!("Latch::<{scope}>::from_ptr(p).wait();"),
                    "latch_arrive_and_wait" => format!("Latch::<{scope}>::from_ptr(p).arrive_and_wait();"),
                    "barrier_arrive" => format!("let _ = Barrier::<{scope}>::from_ptr(p.cast()).arrive();"),
                    "barrier_arrive_then_wait" => format!("let b = Barrier::<{scope}>::from_ptr(p.cast()); let t = b.arrive(); b.wait(t);"),
                    "barrier_arrive_and_wait" => format!("Barrier::<{scope}>::from_ptr(p.cast()).arrive_and_wait();"),
                    "barrier_arrive_and_wait_with" => format!("Barrier::<{scope}>::from_ptr(p.cast()).arrive_and_wait_with(|| *out = *v);"),
                    "barrier_arrive_and_drop" => format!("Barrier::<{scope}>::from_ptr(p.cast()).arrive_and_drop();"),
                    "barrier_arrive_n" => format!("let _ = Barrier::<{scope}>::from_ptr(p.cast()).arrive_n(*v);"),
                    "barrier_wait_parity" => format!("Barrier::<{scope}>::from_ptr(p.cast()).wait_parity(*v != 0);"),
                    "barrier_try_wait_parity" => format!("*out = Barrier::<{scope}>::from_ptr(p.cast()).try_wait_parity(*v != 0) as u32;"),
                    "latch_init" => format!("Latch::<{scope}>::from_ptr(p).init(*v);"),
                    "semaphore_init" => format!("Semaphore::<{scope}, 4>::from_ptr(p).init(*v);"),
                    "atomic_wait" => format!("*out = Atomic::<u32, {scope}>::from_ptr(p).wait(*v, Ordering::Acquire);"),
                    "atomic_wait_until_for" => format!("*out = Atomic::<u32, {scope}>::from_ptr(p).wait_until_for(d, Ordering::Acquire, |x| x == *v).unwrap_or(0);"),
                    other => unknown("primitive operation", other),
                };
                format!("let _ = (v, out); let d = core::time::Duration::from_nanos(*v as u64); let t = ptx_sync::clock::Instant::from_nanos(*v as u64); let _ = (d, t); {call}")
            }
            // `ptx_sync::index::<f>()`; the `usize` ones truncated into `out`, the grid-stride
            // loop summing its indices below `*v`.
            Kind::Block if op.name.starts_with("index_") => match &op.name["index_".len()..] {
                "grid_stride" => "let _ = p; let mut s = 0u32; for i in ptx_sync::index::grid_stride(*v as usize) { s = s.wrapping_add(i as u32); } *out = s;".to_string(),
                f if f.starts_with("global_") => {
                    format!("let _ = (p, v); *out = ptx_sync::index::{f}() as u32;")
                }
                f => format!("let _ = (p, v); *out = ptx_sync::index::{f}();"),
            },
            Kind::Block => {
                let call = match op.name {
                    "block_barrier_init" => "BlockBarrier::from_ptr(p.cast()).init(*v);",
                    "block_barrier_arrive" => "let _ = BlockBarrier::from_ptr(p.cast()).arrive();",
                    "block_barrier_arrive_and_drop" => "BlockBarrier::from_ptr(p.cast()).arrive_and_drop();",
                    "block_barrier_test_wait" => "let b = BlockBarrier::from_ptr(p.cast()); let t = b.arrive(); *out = b.test_wait(&t) as u32;",
                    "block_barrier_arrive_and_wait" => "BlockBarrier::from_ptr(p.cast()).arrive_and_wait();",
                    "block_barrier_arrive_n" => "let _ = BlockBarrier::from_ptr(p.cast()).arrive_n(*v);",
                    "block_barrier_try_wait_parity" => "*out = BlockBarrier::from_ptr(p.cast()).try_wait_parity(*v != 0) as u32;",
                    "block_barrier_wait_parity" => "BlockBarrier::from_ptr(p.cast()).wait_parity(*v != 0);",
                    "block_barrier_wait_for" => "let b = BlockBarrier::from_ptr(p.cast()); let t = b.arrive(); *out = b.wait_for(&t, core::time::Duration::from_nanos(*v as u64)).is_ok() as u32;",
                    "block_barrier_wait_until" => "let b = BlockBarrier::from_ptr(p.cast()); let t = b.arrive(); *out = b.wait_until(&t, ptx_sync::clock::Instant::from_nanos(*v as u64)).is_ok() as u32;",
                    "block_barrier_wait_parity_for" => "*out = BlockBarrier::from_ptr(p.cast()).wait_parity_for(*v != 0, core::time::Duration::from_nanos(*v as u64)).is_ok() as u32;",
                    "block_barrier_wait_parity_until" => "*out = BlockBarrier::from_ptr(p.cast()).wait_parity_until(*v != 0, ptx_sync::clock::Instant::from_nanos(*v as u64)).is_ok() as u32;",
                    "block_barrier_expect_tx" => "BlockBarrier::from_ptr(p.cast()).expect_tx(*v);",
                    "block_barrier_arrive_expect_tx" => "let _ = BlockBarrier::from_ptr(p.cast()).arrive_expect_tx(*v);",
                    "block_barrier_complete_tx" => "BlockBarrier::from_ptr(p.cast()).complete_tx(*v);",
                    // Into the dynamic shared memory, from `out` (global), signalling the barrier at `p`.
                    "bulk_copy_global_to_shared" => "ptx_sync::bulk::copy_global_to_shared(ptx_sync::shared::Shared::dynamic().cast::<u32>(), out as *const u32, *v, BlockBarrier::from_ptr(p.cast()));",
                    "bulk_fence_proxy_async_shared" => "ptx_sync::bulk::fence_proxy_async_shared();",
                    "bulk_fence_proxy_async" => "ptx_sync::bulk::fence_proxy_async();",
                    "dynamic_shared_memory" => "*out = ptx_sync::block::dynamic_shared_memory() as usize as u32;",
                    "grid_sync" => "GridBarrier::<ptx_sync::Spin>::from_ptr(p).sync();",
                    "grid_sync_aligned" => "GridBarrier::<ptx_sync::Spin>::from_ptr(p).sync_aligned();",
                    "block_sync_aligned" => "ptx_sync::block::sync_aligned();",
                    "cluster_sync" => "ptx_sync::cluster::sync();",
                    "cluster_arrive_relaxed" => "ptx_sync::cluster::arrive_relaxed();",
                    "cluster_map_shared" => "*out = ptx_sync::cluster::map_shared(p, *v) as usize as u32;",
                    other => unknown("block operation", other),
                };
                format!("let _ = (p, v, out); {call}")
            }
            Kind::Wait => match op.name {
                "sleep_ns" => "let _ = (p, out); ptx_sync::wait::sleep_ns(*v);".to_string(),
                "global_timer_ns" => {
                    "let _ = (p, v); *out = ptx_sync::wait::global_timer_ns() as u32;".to_string()
                }
                "instant_now" => {
                    "let _ = (p, v); *out = ptx_sync::clock::Instant::now().as_nanos() as u32;"
                        .to_string()
                }
                "instant_elapsed" => "let _ = p; *out = ptx_sync::clock::Instant::from_nanos(*v as u64).elapsed().as_secs() as u32;".to_string(),
                "lane" => "let _ = (p, v); *out = ptx_sync::warp::lane();".to_string(),
                "active_mask" => {
                    "let _ = (p, v); *out = ptx_sync::warp::active_mask();".to_string()
                }
                "peers" => "let _ = v; *out = ptx_sync::warp::peers(&*p);".to_string(),
                "match_any" => {
                    "*out = ptx_sync::warp::match_any(*v, p as usize as u64);".to_string()
                }
                "match_any_u32" => {
                    "*out = ptx_sync::warp::match_any_u32(*v, p as usize as u32);".to_string()
                }
                "match_all" => {
                    "*out = ptx_sync::warp::match_all(*v, p as usize as u64).unwrap_or(0);"
                        .to_string()
                }
                "match_all_u32" => {
                    "*out = ptx_sync::warp::match_all_u32(*v, p as usize as u32).unwrap_or(0);"
                        .to_string()
                }
                "ballot" => "*out = ptx_sync::warp::ballot(*v, p as usize & 4 != 0);".to_string(),
                "any" | "all" | "uni" => format!(
                    "*out = ptx_sync::warp::{}(*v, p as usize & 4 != 0) as u32;",
                    op.name
                ),
                // The mask from `p`, the value from `v`, the lane operand from `out`: all
                // run-time values, in registers.
                "shfl_idx" | "shfl_up" | "shfl_down" | "shfl_xor" => format!(
                    "*out = ptx_sync::warp::{}(p as usize as u32, *v, out as usize as u32);",
                    op.name
                ),
                "elect_one" => {
                    "let _ = p; *out = ptx_sync::warp::elect_one(*v) as u32;".to_string()
                }
                "leader" => "let _ = p; *out = ptx_sync::warp::leader(*v) as u32;".to_string(),
                "warp_sync" => "let _ = (p, out); ptx_sync::warp::sync(*v);".to_string(),
                // The mask from `p`, the value from `v`: run-time values, in registers.
                "reduce_add" | "reduce_min" | "reduce_max" | "reduce_and" | "reduce_or"
                | "reduce_xor" | "inclusive_scan_add" | "exclusive_scan_add" => format!(
                    "*out = ptx_sync::warp::{}(p as usize as u32, *v);",
                    op.name
                ),
                "lanemask_lt" | "lanemask_le" | "lanemask_eq" | "lanemask_ge" | "lanemask_gt" => {
                    format!("let _ = (p, v); *out = ptx_sync::warp::{}();", op.name)
                }
                other => unknown("wait or warp operation", other),
            },
        };
        // The word's type (`p`), and the value's (`v`, `out`).
        let (w, t) = match ty {
            "none" => ("u32", "u32"),
            "bool" | "flag" => ("u32", "bool"),
            "ptr" => ("*mut u32", "*mut u32"),
            _ if VECTORS.contains(&ty) => (vector(ty).1, vector(ty).1),
            _ if space_of(ty).is_some() => (space_of(ty).unwrap().1, space_of(ty).unwrap().1),
            // A scalar (`value_type` refuses any other name).
            _ => (value_type(ty), value_type(ty)),
        };
        writeln!(
            src,
            "{gate}#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn {name}(p: *mut {w}, v: *const {t}, out: *mut {t}) {{\n    {body}\n}}\n"
        )
        .unwrap();
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("generated.rs");
    std::fs::write(out, src).unwrap();
}

/// A case name this generator has no arm for: a typo in cases.rs, or a new operation or type
/// that needs its arm here (a catch-all arm would quietly stamp some other kernel for it).
fn unknown(what: &str, name: &str) -> ! {
    panic!("tests/golden/build.rs: no kernel body for the {what} {name:?} (cases.rs): add its arm")
}

/// The Rust type of a scalar value type code: the half floats are `ptx_sync`'s types, the
/// others Rust's primitives of that name.
fn value_type(ty: &str) -> &str {
    match ty {
        "f16" => "ptx_sync::F16",
        "bf16" => "ptx_sync::Bf16",
        "f16x2" => "ptx_sync::F16x2",
        "bf16x2" => "ptx_sync::Bf16x2",
        "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "u128" | "usize"
        | "isize" | "f32" | "f64" => ty,
        other => unknown("value type", other),
    }
}

/// A vector type code's atomic type and the array it views.
fn vector(ty: &str) -> (&'static str, &'static str) {
    match ty {
        "v2f32" => ("AtomicF32x2", "[f32; 2]"),
        "v4f32" => ("AtomicF32x4", "[f32; 4]"),
        "v4f16" => ("AtomicF16x4", "[ptx_sync::F16; 4]"),
        "v8f16" => ("AtomicF16x8", "[ptx_sync::F16; 8]"),
        "v4bf16" => ("AtomicBf16x4", "[ptx_sync::Bf16; 4]"),
        "v8bf16" => ("AtomicBf16x8", "[ptx_sync::Bf16; 8]"),
        other => unknown("vector type", other),
    }
}

/// The handle of a state-space case: `Shared` and `ClusterShared` over the golden crate's
/// `shared!` word (`WORD`, in src/lib.rs; its address is a symbol, so the kernel holds only
/// the operation, plus `mapa` for the cluster), `Global` from the pointer argument
/// (`cvta.to.global`, which the test leaves out with the kernel's own global traffic).
fn space_handle(ty: &str, scope: &str) -> String {
    let (space, base) = space_of(ty).unwrap();
    let atomic = format!("Atomic<{base}, {scope}>");
    match space {
        "shared::cta" => format!("crate::WORD.shared().cast::<{atomic}>()"),
        "global" => format!("ptx_sync::Global::<{atomic}>::from_generic(p.cast())"),
        "shared::cluster" => format!("crate::WORD.shared().cast::<{atomic}>().map(1)"),
        other => unknown("state space", other),
    }
}
