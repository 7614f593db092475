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
        let a = format!("Atomic::<{ty}, {scope}>::from_ptr(p)");
        let body = match op.kind {
            Kind::Load => format!("*out = {a}.load(Ordering::{order});"),
            Kind::Store => format!("{a}.store(*v, Ordering::{order});"),
            Kind::Rmw => format!("*out = {a}.{}(*v, Ordering::{order});", op.name),
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
                _ => "let _ = (p, out); ptx_sync::warp::sync(*v);".to_string(),
            },
        };
        let t = if ty == "none" { "u32" } else { ty };
        writeln!(
            src,
            "{gate}#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn {name}(p: *mut {t}, v: *const {t}, out: *mut {t}) {{\n    {body}\n}}\n"
        )
        .unwrap();
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("generated.rs");
    std::fs::write(out, src).unwrap();
}
