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
            "bool" => format!("AtomicBool::<{scope}>::from_ptr(p)"),
            "flag" => format!("AtomicFlag::<{scope}>::from_ptr(p)"),
            "ptr" => format!("AtomicPtr::<u32, {scope}>::from_ptr(p)"),
            _ => format!("Atomic::<{ty}, {scope}>::from_ptr(p)"),
        };
        // Operations without an operand: `fetch_not`, and the flag's `test_and_set`, `clear`.
        let arg = match op.name {
            "fetch_not" | "test_and_set" | "clear" => "",
            _ => "*v, ",
        };
        let body = match op.kind {
            // `load`, or the flag's `test`.
            Kind::Load => format!("*out = {a}.{}(Ordering::{order});", op.name),
            Kind::Store => format!("{a}.{}({arg}Ordering::{order});", op.name),
            Kind::Rmw | Kind::RmwLoop => {
                format!("*out = {a}.{}({arg}Ordering::{order});", op.name)
            }
            Kind::Update => {
                let (s, f) = order.split_once('_').unwrap();
                let step = if ty == "bool" {
                    "!x"
                } else {
                    "x.wrapping_add(1)"
                };
                format!(
                    "let _ = v; *out = match {a}.fetch_update(Ordering::{s}, Ordering::{f}, |x| Some({step})) {{ Ok(x) | Err(x) => x }};"
                )
            }
            // `AtomicFlag::wait` returns nothing; the others the value that ended the wait.
            Kind::AtomicWait if ty == "flag" => {
                format!("let _ = out; {a}.wait(*v, Ordering::{order});")
            }
            Kind::AtomicWait => format!("*out = {a}.wait(*v, Ordering::{order});"),
            Kind::Notify => format!("let _ = (v, out); {a}.{}();", op.name),
            Kind::Cas => {
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
                    "latch_count_down" => format!("Latch::<{scope}>::from_ptr(p).count_down(*v);"),
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
                    _ => format!("*out = Atomic::<u32, {scope}>::from_ptr(p).wait_until_for(1000, Ordering::Acquire, |x| x == *v).unwrap_or(0);"),
                };
                format!("let _ = (v, out); {call}")
            }
            Kind::Block => {
                let call = match op.name {
                    "block_barrier_init" => "BlockBarrier::from_ptr(p.cast()).init(*v);",
                    "block_barrier_arrive" => "let _ = BlockBarrier::from_ptr(p.cast()).arrive();",
                    "block_barrier_arrive_and_drop" => "BlockBarrier::from_ptr(p.cast()).arrive_and_drop();",
                    "block_barrier_test_wait" => "let b = BlockBarrier::from_ptr(p.cast()); let t = b.arrive(); *out = b.test_wait(&t) as u32;",
                    "block_barrier_arrive_and_wait" => "BlockBarrier::from_ptr(p.cast()).arrive_and_wait();",
                    "dynamic_shared_memory" => "*out = ptx_sync::block::dynamic_shared_memory() as usize as u32;",
                    "grid_sync" => "GridBarrier::<ptx_sync::Spin>::from_ptr(p).sync();",
                    "cluster_sync" => "ptx_sync::cluster::sync();",
                    "cluster_arrive_relaxed" => "ptx_sync::cluster::arrive_relaxed();",
                    _ => "*out = ptx_sync::cluster::map_shared(p, *v) as usize as u32;",
                };
                format!("let _ = (p, v, out); {call}")
            }
            Kind::Wait => match op.name {
                "sleep_ns" => "let _ = (p, out); ptx_sync::wait::sleep_ns(*v);".to_string(),
                "global_timer_ns" => {
                    "let _ = (p, v); *out = ptx_sync::wait::global_timer_ns() as u32;".to_string()
                }
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
                _ => "let _ = (p, out); ptx_sync::warp::sync(*v);".to_string(),
            },
        };
        // The word's type (`p`), and the value's (`v`, `out`).
        let (w, t) = match ty {
            "none" => ("u32", "u32"),
            "bool" | "flag" => ("u32", "bool"),
            "ptr" => ("*mut u32", "*mut u32"),
            _ => (ty, ty),
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
