//! `cargo xtask <command>`: see `help`.

use std::path::PathBuf;
use std::process::{exit, Command};
use xtask::{build_all, find_ptxas, ptxas_check, stage, workspace_root, Arch};

const HELP: &str = "\
cargo xtask <command> [options]

  build-ptx [--arch sm_90]            build every kernel crate to PTX and print the paths
  ptxas [--arch sm_XX]                build and assemble the PTX with ptxas (default: sm_75,
                                      sm_80, sm_90, and sm_70 when a CUDA 12 ptxas is found)
  stage [--dir .stage/gpu] [--arch sm_90]
                                      runner + PTX + run.sh in one folder, for a GPU machine
                                      without Rust (copy it there, run ./run.sh)
  test-gpu [--arch sm_90] [--filter S]
                                      build, ptxas-check, stage and run the GPU suite here
  help                                this text";

struct Args {
    arch: Option<Arch>,
    dir: PathBuf,
    filter: Option<String>,
}

fn parse(mut rest: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args { arch: None, dir: workspace_root().join(".stage/gpu"), filter: None };
    while let Some(flag) = rest.next() {
        let mut value = || rest.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--arch" => args.arch = Some(value()?.parse()?),
            "--dir" => args.dir = PathBuf::from(value()?),
            "--filter" => args.filter = Some(value()?),
            other => return Err(format!("unknown option `{other}`\n\n{HELP}")),
        }
    }
    Ok(args)
}

fn build_and_check(arch: Arch) -> Result<(), String> {
    for ptx in build_all(arch)? {
        ptxas_check(&ptx, arch)?;
        println!("{arch}: {} (ptxas ok)", ptx.display());
    }
    Ok(())
}

fn run() -> Result<i32, String> {
    let mut argv = std::env::args().skip(1);
    let command = argv.next().unwrap_or_else(|| "help".into());
    let args = parse(argv)?;
    match command.as_str() {
        "build-ptx" => {
            for ptx in build_all(args.arch.unwrap_or(Arch::Sm90))? {
                println!("{}", ptx.display());
            }
        }
        "ptxas" => {
            let archs = match args.arch {
                Some(a) => vec![a],
                None => {
                    let mut v = vec![Arch::Sm75, Arch::Sm80, Arch::Sm90];
                    match find_ptxas(Arch::Sm70) {
                        Ok(_) => v.insert(0, Arch::Sm70),
                        Err(e) => println!("sm_70 skipped: {e}"),
                    }
                    v
                }
            };
            for arch in archs {
                build_and_check(arch)?;
            }
        }
        "stage" => {
            let arch = args.arch.unwrap_or(Arch::Sm90);
            stage(&args.dir, arch)?;
            println!("staged the GPU suite for {arch} in {} (run ./run.sh there)", args.dir.display());
        }
        "test-gpu" => {
            let arch = args.arch.unwrap_or(Arch::Sm90);
            build_and_check(arch)?;
            stage(&args.dir, arch)?;
            let mut cmd = Command::new(args.dir.join("run.sh"));
            if let Some(f) = &args.filter {
                cmd.args(["--filter", f]);
            }
            let code = cmd.status().map_err(|e| format!("running the staged suite: {e}"))?.code().unwrap_or(1);
            if code == 2 {
                eprintln!(
                    "no GPU found: the PTX was built and ptxas-checked for {arch}; to run the suite on a \
                     remote GPU machine, copy {} there and run ./run.sh",
                    args.dir.display()
                );
            }
            return Ok(code);
        }
        "help" | "--help" | "-h" => println!("{HELP}"),
        other => return Err(format!("unknown command `{other}`\n\n{HELP}")),
    }
    Ok(0)
}

fn main() {
    match run() {
        Ok(code) => exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            exit(1);
        }
    }
}
