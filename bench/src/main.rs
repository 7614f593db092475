//! `bench-gpu`: every benchmark case, Rust (bench/kernels) and CUDA C++ (bench/cpp, loaded as a
//! shared library), launches alternating on one stream, medians of CUDA-event times.
//!
//! `bench-gpu --ptx-dir DIR [--reference libreference.so] [--reps N] [--filter S]
//!            [--json F] [--markdown F] [--sass-rust F --sass-cpp F] [--meta KEY=VALUE]...`
//! `bench-gpu --list [--reference libreference.so] [--filter S]`: the cases, without a GPU.
//! Exit: 0 every case ran and checked out, 1 a failure, 2 no CUDA driver.

mod reference;
mod report;
mod rust_cases;
mod rwlock_queue;
mod sass;
mod space;
mod table;
mod user_shapes;

use report::{Row, Side};
use std::path::PathBuf;
use std::process::exit;

struct Args {
    ptx_dir: PathBuf,
    reference: Option<PathBuf>,
    reps: usize,
    max_reps: Option<usize>,
    filter: Option<String>,
    json: Option<PathBuf>,
    markdown: Option<PathBuf>,
    sass: Option<(PathBuf, PathBuf)>,
    meta: Vec<(String, String)>,
    list: bool,
}

const USAGE: &str =
    "bench-gpu --ptx-dir DIR [--reference libreference.so] [--reps N] [--max-reps M]
          [--filter SUBSTR] [--json FILE] [--markdown FILE] [--sass-rust FILE --sass-cpp FILE] [--meta KEY=VALUE]...
bench-gpu --list [--reference libreference.so] [--filter SUBSTR]

Runs every case (or those whose name contains SUBSTR): Rust and C++ launches alternate on one
stream, each timed and checked. --markdown FILE also writes the R/C chart, bench.svg, next to
FILE. A row whose first N launch pairs cannot tell whether it meets its target (its R/C 95%
interval straddles it) gets N more at a time, up to M pairs (default 4 N). --list prints the cases (which sides have each) and needs no GPU.
Exit: 0 every case ran and checked out, 1 a failure, 2 no CUDA driver.";

fn parse() -> Result<Args, String> {
    let mut a = Args {
        ptx_dir: PathBuf::new(),
        reference: None,
        reps: 15,
        max_reps: None,
        filter: None,
        json: None,
        markdown: None,
        sass: None,
        meta: vec![],
        list: false,
    };
    let mut sass_rust = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut v = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--ptx-dir" => a.ptx_dir = v()?.into(),
            "--reference" => a.reference = Some(v()?.into()),
            "--reps" => a.reps = v()?.parse().map_err(|_| "--reps needs a number")?,
            "--max-reps" => {
                a.max_reps = Some(v()?.parse().map_err(|_| "--max-reps needs a number")?)
            }
            "--filter" => a.filter = Some(v()?),
            "--json" => a.json = Some(v()?.into()),
            "--markdown" => a.markdown = Some(v()?.into()),
            "--sass-rust" => sass_rust = Some(PathBuf::from(v()?)),
            "--sass-cpp" => {
                a.sass = Some((sass_rust.clone().ok_or("--sass-rust first")?, v()?.into()))
            }
            "--meta" => {
                let kv = v()?;
                let (k, val) = kv.split_once('=').ok_or("--meta KEY=VALUE")?;
                a.meta.push((k.into(), val.into()));
            }
            "--list" => a.list = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                exit(0)
            }
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if a.reps < 10 {
        return Err("--reps must be at least 10".into());
    }
    if a.max_reps.is_some_and(|m| m < a.reps) {
        return Err(format!("--max-reps must be at least --reps ({})", a.reps));
    }
    Ok(a)
}

fn main() {
    let args = parse().unwrap_or_else(|e| {
        eprintln!("bench-gpu: {e}");
        exit(1)
    });
    if args.list {
        list(&args);
        exit(0)
    }
    let gpu = match ptx_sync_host::Device::open(0) {
        Ok(g) => g,
        Err(e @ ptx_sync_host::Error::NoDriver(_)) => {
            println!("no CUDA driver found: {e}");
            exit(2)
        }
        Err(e) => {
            eprintln!("bench-gpu: {e}");
            exit(1)
        }
    };
    let module = gpu
        .load_ptx(args.ptx_dir.join("ptx_sync_bench_kernels.ptx"))
        .unwrap_or_else(|e| {
            eprintln!("bench-gpu: {e}");
            exit(1)
        });
    let reference = match &args.reference {
        Some(p) if p.is_file() => Some(reference::Reference::load(p).unwrap_or_else(|e| {
            eprintln!("bench-gpu: {e}");
            exit(1)
        })),
        _ => {
            println!("C++ reference not measured (no library: nvcc missing?); Rust side only");
            None
        }
    };
    let rust_names = rust_cases::names();
    let cpp_names = reference.as_ref().map(|r| r.cases()).unwrap_or_default();
    let mut cases = merge_cases(&cpp_names, &rust_names);
    cases.retain(|c| args.filter.as_deref().is_none_or(|f| c.contains(f)));

    println!(
        "device: {} ({} SMs); {} timed launches per side per case",
        gpu.name(),
        gpu.sm_count(),
        args.reps
    );
    println!("{}", report::header());
    let max_reps = args.max_reps.unwrap_or(args.reps.saturating_mul(4));
    let mut rows = Vec::new();
    let mut failed = 0;
    for case in &cases {
        let has_rust = rust_names.contains(case);
        // A Rust-only row (no C++ case of that name) next to a measured reference.
        let rust_only = reference.is_some() && !cpp_names.contains(case);
        let mut rust = has_rust.then(Side::default);
        let mut cpp = reference
            .as_ref()
            .filter(|_| !rust_only)
            .map(|_| Side::default());
        let run = |rust: &mut Option<Side>, cpp: &mut Option<Side>, count, warm| {
            run_pairs(
                &gpu,
                &module,
                reference.as_ref(),
                case,
                (rust, cpp),
                count,
                warm,
            )
        };
        run(&mut rust, &mut cpp, args.reps, 2);
        let mut row = Row {
            case: case.clone(),
            unit: report::unit(case),
            rust,
            cpp,
            target: report::target(case),
            rust_only,
        };
        // Undecided against its target: more pairs, `reps` at a time, up to `max_reps`.
        while row.meets() == Some(report::Verdict::Undecided) && row.pairs() < max_reps {
            let more = args.reps.min(max_reps - row.pairs());
            run(&mut row.rust, &mut row.cpp, more, 0);
        }
        failed += [&row.rust, &row.cpp]
            .iter()
            .filter(|s| s.as_ref().is_some_and(|s| s.error.is_some()))
            .count();
        println!("{}", report::line(&row));
        rows.push(row);
    }

    let sass = match &args.sass {
        Some((r, c)) => match (std::fs::read_to_string(r), std::fs::read_to_string(c)) {
            (Ok(r), Ok(c)) => sass::compare(&r, &c),
            _ => "SASS listings missing: not compared.\n".into(),
        },
        None => String::new(),
    };
    if !sass.is_empty() {
        println!("\n{}", sass.lines().next().unwrap_or(""));
        for l in sass.lines().filter(|l| l.contains("**no**")) {
            println!("{l}");
        }
    }
    let mut meta: Vec<(&str, String)> =
        vec![("device", format!("{} ({} SMs)", gpu.name(), gpu.sm_count()))];
    meta.extend(args.meta.iter().map(|(k, v)| (k.as_str(), v.clone())));
    meta.push((
        "timed launches per side per case",
        format!(
            "{}, up to {max_reps} where the first {} could not decide the row",
            args.reps, args.reps
        ),
    ));
    if reference.is_none() {
        meta.push(("C++ reference", "not measured (nvcc not found)".into()));
    }
    if let Some(p) = &args.json {
        std::fs::write(p, report::json(&meta, &rows))
            .unwrap_or_else(|e| eprintln!("{}: {e}", p.display()));
    }
    if let Some(p) = &args.markdown {
        std::fs::write(p, report::markdown(&meta, &rows, &sass))
            .unwrap_or_else(|e| eprintln!("{}: {e}", p.display()));
        // The R/C chart next to it (BENCHMARKS.md embeds it by this name).
        let chart = p.with_file_name(report::SVG_NAME);
        std::fs::write(&chart, report::svg(&rows))
            .unwrap_or_else(|e| eprintln!("{}: {e}", chart.display()));
    }
    println!("{} cases, {failed} failed", rows.len());
    exit(if failed == 0 { 0 } else { 1 });
}

/// `warm` untimed then `count` timed launch pairs of `case`: Rust, then C++, alternating. A
/// side that failed is not launched again.
fn run_pairs(
    gpu: &ptx_sync_host::Device,
    module: &ptx_sync_host::Module,
    reference: Option<&reference::Reference>,
    case: &str,
    (rust, cpp): (&mut Option<Side>, &mut Option<Side>),
    count: usize,
    warm: usize,
) {
    for rep in 0..count + warm {
        if let Some(side) = rust.as_mut().filter(|s| s.error.is_none()) {
            record(side, rust_cases::run(gpu, module, case), rep < warm);
        }
        if let (Some(side), Some(r)) = (cpp.as_mut().filter(|s| s.error.is_none()), reference) {
            record(side, r.run(case), rep < warm);
        }
    }
}

/// `--list`: every case, in table order, with the sides that have it.
fn list(args: &Args) {
    let reference = args
        .reference
        .as_ref()
        .filter(|p| p.is_file())
        .map(|p| reference::Reference::load(p))
        .transpose()
        .unwrap_or_else(|e| {
            eprintln!("bench-gpu: {e}");
            exit(1)
        });
    let rust = rust_cases::names();
    let cpp = reference.as_ref().map(|r| r.cases()).unwrap_or_default();
    for case in merge_cases(&cpp, &rust) {
        if args.filter.as_deref().is_some_and(|f| !case.contains(f)) {
            continue;
        }
        let sides = match (rust.contains(&case), cpp.contains(&case)) {
            (true, true) => "Rust, C++",
            (true, false) => "Rust",
            _ => "C++",
        };
        println!("{case:<46} {sides}");
    }
}

/// Every C++ case in the reference's order, with each Rust-only case (one the reference lacks)
/// right after the Rust case that precedes it in `rust` (so `block_barrier/generic` sits with
/// the block barriers). Without a reference: the Rust cases.
fn merge_cases(cpp: &[String], rust: &[String]) -> Vec<String> {
    let mut cases = cpp.to_vec();
    for (i, name) in rust.iter().enumerate() {
        if cases.contains(name) {
            continue;
        }
        let after = rust[..i]
            .iter()
            .rev()
            .find_map(|prev| cases.iter().position(|c| c == prev));
        match after {
            Some(p) => cases.insert(p + 1, name.clone()),
            None => cases.push(name.clone()),
        }
    }
    cases
}

fn record(side: &mut Side, sample: reference::Sample, warm: bool) {
    match sample {
        Ok((ms, units)) => {
            side.units = units;
            if !warm {
                side.ms.push(ms);
            }
        }
        Err(e) => side.error = Some(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::merge_cases;

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rust_only_cases_sit_after_their_rust_neighbour() {
        let cpp = v(&["a/1", "b/1", "b/2", "c/1"]);
        let rust = v(&["a/1", "b/1", "b/2", "b/rust", "c/1", "d/rust"]);
        assert_eq!(
            merge_cases(&cpp, &rust),
            v(&["a/1", "b/1", "b/2", "b/rust", "c/1", "d/rust"])
        );
        assert_eq!(merge_cases(&[], &rust), rust);
    }
}
