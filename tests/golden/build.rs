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
        let gate = if needs_sm90(scope, ty) {
            "#[cfg(target_feature = \"sm_90\")]\n"
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
            Kind::Wait => match op.name {
                "sleep_ns" => "let _ = (p, out); ptx_sync::wait::sleep_ns(*v);".to_string(),
                "global_timer_ns" => {
                    "let _ = (p, v); *out = ptx_sync::wait::global_timer_ns() as u32;".to_string()
                }
                "lane" => "let _ = (p, v); *out = ptx_sync::warp::lane();".to_string(),
                "active_mask" => {
                    "let _ = (p, v); *out = ptx_sync::warp::active_mask();".to_string()
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
