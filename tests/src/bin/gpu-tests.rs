//! The GPU suite's runner. `gpu-tests --ptx-dir DIR [--filter S] [--timeout-scale F] [--list]`
//! (the PTX dir may also come from `PTX_SYNC_PTX_DIR`). Every test runs in its own child
//! process (`--one NAME`) under a watchdog. Exit: 0 all passed, 1 failures, 2 no CUDA driver.

use ptx_sync_tests::runner::{parse_args, run_all, run_one, selected, USAGE};
use std::process::exit;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        exit(0);
    }
    let env_dir = std::env::var_os("PTX_SYNC_PTX_DIR").map(Into::into);
    let cli = parse_args(argv, env_dir).unwrap_or_else(|e| {
        eprintln!("gpu-tests: {e}\n{USAGE}");
        exit(1)
    });
    if cli.list {
        for t in selected(&cli.opts) {
            println!("{}", t.name);
        }
        exit(0);
    }
    exit(match cli.one {
        Some(name) => run_one(&cli.opts.ptx_dir, &name),
        None => run_all(&cli.opts),
    })
}
