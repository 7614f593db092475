//! The GPU suite's runner. `gpu-tests --ptx-dir DIR [--filter S] [--timeout-scale F] [--list]`
//! (the PTX dir may also come from `PTX_SYNC_PTX_DIR`). Exit: 0 all passed, 1 failures,
//! 2 no CUDA driver.

use ptx_sync_tests::runner::{run_all, run_one, selected, Options};
use std::path::PathBuf;
use std::process::exit;

const USAGE: &str = "usage: gpu-tests --ptx-dir DIR [--filter SUBSTR] [--timeout-scale F] [--list]";

fn main() {
    let mut opts = Options {
        ptx_dir: std::env::var_os("PTX_SYNC_PTX_DIR")
            .map(PathBuf::from)
            .unwrap_or_default(),
        filter: None,
        include_hidden: false,
        timeout_scale: 1.0,
    };
    let (mut list, mut one) = (false, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next().unwrap_or_else(|| {
                eprintln!("{a} needs a value\n{USAGE}");
                exit(1)
            })
        };
        match a.as_str() {
            "--ptx-dir" => opts.ptx_dir = PathBuf::from(value()),
            "--filter" => opts.filter = Some(value()),
            "--timeout-scale" => {
                opts.timeout_scale = value().parse().unwrap_or_else(|_| {
                    eprintln!("--timeout-scale needs a number");
                    exit(1)
                })
            }
            "--one" => one = Some(value()),
            "--include-hidden" => opts.include_hidden = true,
            "--list" => list = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                exit(0)
            }
            other => {
                eprintln!("unknown option `{other}`\n{USAGE}");
                exit(1)
            }
        }
    }
    if list {
        for t in selected(&opts) {
            println!("{}", t.name);
        }
        exit(0);
    }
    if opts.ptx_dir.as_os_str().is_empty() {
        eprintln!("no PTX directory: pass --ptx-dir or set PTX_SYNC_PTX_DIR\n{USAGE}");
        exit(1);
    }
    exit(match one {
        Some(name) => run_one(&opts.ptx_dir, &name),
        None => run_all(&opts),
    })
}
