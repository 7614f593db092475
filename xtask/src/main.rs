//! `cargo xtask <command>`: see `help`.

use std::path::{Path, PathBuf};
use std::process::{exit, Command};
use std::time::Instant;
use xtask::workspace_root;
use xtask::{
    build_ptx, clippy_ptx, find_ptxas, ptxas_archs_checked, ptxas_check, stage, stage_bench,
    stage_litmus,
};
use xtask::{Arch, KERNEL_CRATES};

const HELP: &str = "\
cargo xtask <command> [options]

  build-ptx [--arch sm_90]        build every kernel crate to PTX, print the paths
  ptxas [--arch sm_XX]            build and assemble every kernel crate with ptxas; default:
                                  sm_75, sm_80, sm_90, and sm_70 when a CUDA 12 ptxas is found
                                  or could be downloaded (see ptxas below)
  stage [--dir .stage/gpu] [--arch sm_90]
                                  put the GPU runner, the PTX and run.sh into one folder; copy
                                  it to a GPU machine (no Rust needed there) and run ./run.sh
  test-gpu [--arch sm_90] [--filter SUBSTR] [--dir .stage/gpu]
                                  build + ptxas-check the PTX, stage, run the GPU suite here
  bench-gpu [--arch sm_90] [--filter SUBSTR] [--dir .stage/bench]
                                  build, stage and run the benchmarks (Rust vs CUDA C++, nvcc
                                  builds the C++ side); writes BENCHMARKS.md and bench.json,
                                  and with two GPUs the NVSHMEM rows (BENCHMARKS-nvshmem.md)
  stage-bench [--dir .stage/bench] [--arch sm_90]
                                  stage the benchmarks only, for a GPU machine without Rust
  litmus [--arch sm_90] [--dir .stage/litmus] [-- RUNNER OPTIONS]
                                  build and stage the litmus suite, run it here; writes
                                  LITMUS.md, litmus.csv, litmus.json in the workspace root
                                  (runner options: --full, --filter, --seed, ...: -- --help)
  stage-litmus [--dir .stage/litmus] [--arch sm_90]
                                  stage the litmus suite only, for a GPU machine without Rust
  ptx-table                       regenerate device/PTX_TABLE.md (every operation's exact PTX)
                                  from the golden cases; the golden test fails when it is stale
  clippy-ptx [--arch sm_XX]       clippy -D warnings on the device crate and the kernel crates
                                  for nvptx (default: sm_80 and sm_90)
  help                            this text

Archs: sm_70, sm_75, sm_80, sm_90. ptxas: $PTXAS ($PTXAS_SM70 for sm_70), PATH,
/usr/local/cuda/bin, Python's pip wheels (nvidia-cuda-nvcc, nvidia-cuda-nvcc-cu12), then the
project's own: target/ci/cuda13, target/ci/cuda12 (.ci/run), target/tools. With none found, the
pinned wheels' ptxas is downloaded from PyPI into target/tools (python3, no pip; CUDA 13 for
sm_75+, CUDA 12.9 for sm_70); PTX_SYNC_NO_DOWNLOAD=1 turns that off (cargo test then ignores
the ptxas checks it cannot run, saying why).";

#[derive(Default)]
struct Args {
    arch: Option<Arch>,
    dir: Option<PathBuf>,
    filter: Option<String>,
}

impl Args {
    /// `--arch`, or `Arch::DEFAULT`.
    fn arch(&self) -> Arch {
        self.arch.unwrap_or(Arch::DEFAULT)
    }

    /// `--dir`, or `.stage/<name>` in the workspace.
    fn dir_or_stage(&self, name: &str) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(|| workspace_root().join(format!(".stage/{name}")))
    }
}

/// A `stage*` command: `stage_fn` puts `what` for `--arch` into `--dir` (default
/// `.stage/<name>`), then this says where.
fn stage_command(
    argv: impl Iterator<Item = String>,
    name: &str,
    what: &str,
    stage_fn: fn(&Path, Arch) -> Result<(), String>,
) -> Result<(), String> {
    let args = parse(argv, &["--arch", "--dir"])?;
    let (arch, dir) = (args.arch(), args.dir_or_stage(name));
    stage_fn(&dir, arch)?;
    println!(
        "staged {what} for {arch} in {}: copy it to a GPU machine, run ./run.sh",
        dir.display()
    );
    Ok(())
}

/// Parses `--flag value` pairs; `allowed` lists the flags the command takes.
fn parse(mut rest: impl Iterator<Item = String>, allowed: &[&str]) -> Result<Args, String> {
    let mut args = Args::default();
    while let Some(flag) = rest.next() {
        if !allowed.contains(&flag.as_str()) {
            return Err(format!("unknown option `{flag}` (see `cargo xtask help`)"));
        }
        let value = rest.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--arch" => args.arch = Some(value.parse::<Arch>().map_err(|e| e.to_string())?),
            "--dir" => args.dir = Some(PathBuf::from(value)),
            _ => args.filter = Some(value),
        }
    }
    Ok(args)
}

/// Builds every kernel crate for `arch`, printing each PTX path (and ptxas-checking it).
fn build(arch: Arch, check: bool) -> Result<(), String> {
    let root = workspace_root();
    for dir in KERNEL_CRATES {
        let t = Instant::now();
        let ptx = build_ptx(&root.join(dir), arch)?;
        let built = t.elapsed().as_secs_f32();
        if !check {
            eprintln!("{arch} {dir}: built in {built:.1}s");
            println!("{}", ptx.display());
            continue;
        }
        let t = Instant::now();
        ptxas_check(&ptx, arch)?;
        let checked = t.elapsed().as_secs_f32();
        println!(
            "{arch} {dir}: built in {built:.1}s, ptxas ok in {checked:.1}s: {}",
            ptx.display()
        );
    }
    Ok(())
}

fn ptxas(arch: Option<Arch>) -> Result<(), String> {
    let archs = match arch {
        Some(a) => vec![a],
        None => {
            let (archs, skipped) = ptxas_archs_checked();
            for note in skipped {
                println!("{}", note.lines().next().unwrap_or_default());
            }
            archs
        }
    };
    // Fail before building anything when a ptxas is missing.
    for &a in &archs {
        let p = find_ptxas(a)?;
        println!("{a}: ptxas {}", p.display());
    }
    for a in archs {
        build(a, true)?;
    }
    Ok(())
}

/// Runs `dir/run.sh` with `args` (and `env`); on exit 2 (no CUDA driver) says that `what` was
/// built and staged in `dir` for a GPU machine. Returns the script's exit code.
fn run_staged(
    dir: &Path,
    args: &[String],
    env: &[(&str, PathBuf)],
    what: &str,
) -> Result<i32, String> {
    let code = Command::new(dir.join("run.sh"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .status()
        .map_err(|e| format!("running {}/run.sh: {e}", dir.display()))?
        .code()
        .unwrap_or(1);
    if code == 2 {
        eprintln!(
            "no GPU found: {what} built and staged in {}; copy it to a GPU machine and run ./run.sh",
            dir.display()
        );
    }
    Ok(code)
}

fn test_gpu(arch: Arch, dir: PathBuf, filter: Option<String>) -> Result<i32, String> {
    build(arch, true)?;
    stage(&dir, arch)?;
    let args: Vec<String> = filter
        .map(|f| vec!["--filter".into(), f])
        .unwrap_or_default();
    run_staged(
        &dir,
        &args,
        &[],
        &format!("the GPU suite was ptxas-checked for {arch},"),
    )
}

fn run() -> Result<i32, String> {
    let mut argv = std::env::args().skip(1);
    let command = argv.next().unwrap_or_else(|| "help".into());
    match command.as_str() {
        "build-ptx" => build(parse(argv, &["--arch"])?.arch(), false)?,
        "ptxas" => ptxas(parse(argv, &["--arch"])?.arch)?,
        "stage" => stage_command(argv, "gpu", "the GPU suite", stage)?,
        "test-gpu" => {
            let args = parse(argv, &["--arch", "--dir", "--filter"])?;
            let dir = args.dir_or_stage("gpu");
            return test_gpu(args.arch(), dir, args.filter);
        }
        "clippy-ptx" => {
            let archs = match parse(argv, &["--arch"])?.arch {
                Some(a) => vec![a],
                None => vec![Arch::Sm80, Arch::Sm90],
            };
            for arch in archs {
                let t = Instant::now();
                clippy_ptx(arch)?;
                println!(
                    "clippy-ptx {arch}: clean ({:.1}s)",
                    t.elapsed().as_secs_f32()
                );
            }
        }
        "stage-bench" => stage_command(argv, "bench", "the benchmarks", stage_bench)?,
        "bench-gpu" => {
            let args = parse(argv, &["--arch", "--dir", "--filter"])?;
            let (arch, dir) = (args.arch(), args.dir_or_stage("bench"));
            build(arch, true)?;
            stage_bench(&dir, arch)?;
            let filter = args.filter.map(|f| vec!["--filter".into(), f]);
            let env = [("BENCH_OUT", workspace_root())];
            return run_staged(
                &dir,
                &filter.unwrap_or_default(),
                &env,
                "the benchmarks were",
            );
        }
        "stage-litmus" => stage_command(argv, "litmus", "the litmus suite", stage_litmus)?,
        "litmus" => {
            // Options before `--` are xtask's; after it, the runner's.
            let all: Vec<String> = argv.collect();
            let split = all.iter().position(|a| a == "--").unwrap_or(all.len());
            let runner_args = all.get(split + 1..).unwrap_or_default().to_vec();
            let args = parse(all[..split].iter().cloned(), &["--arch", "--dir"])?;
            let (arch, dir) = (args.arch(), args.dir_or_stage("litmus"));
            stage_litmus(&dir, arch)?;
            let env = [("LITMUS_OUT", workspace_root())];
            return run_staged(&dir, &runner_args, &env, "the litmus suite was");
        }
        "ptx-table" => {
            parse(argv, &[])?;
            let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .current_dir(workspace_root())
                .env("PTX_SYNC_BLESS", "1")
                .args(["test", "-p", "ptx-sync-tests", "--test", "golden_ptx"])
                .args(["the_ptx_table_is_current", "--", "--exact", "--nocapture"])
                .status()
                .map_err(|e| format!("running cargo: {e}"))?;
            if !status.success() {
                return Err("regenerating device/PTX_TABLE.md failed".into());
            }
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
