//! `litmus --ptx-dir DIR [options]`: runs the litmus suite on GPU 0 and writes the report
//! (`LITMUS.md`, `litmus.csv`, `litmus.json`) into `--out`. Exit: 0 every row passed, 1 a
//! forbidden or impossible outcome or an error, 2 no CUDA driver.

use ptx_sync_litmus::gpu::{handoff, LaunchRecord, Suite};
use ptx_sync_litmus::launch::Launch;
use ptx_sync_litmus::oracle::{Oracle, Variant};
use ptx_sync_litmus::report::{self, grouped, Row};
use ptx_sync_litmus::shapes::SHAPES;
use ptx_sync_litmus::tuning;
use ptx_sync_testkit::Result;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::exit;
use std::time::Instant;

const USAGE: &str = "usage: litmus --ptx-dir DIR [options]
  --ptx-dir DIR          folder with ptx_sync_litmus_kernels.ptx (or env PTX_SYNC_PTX_DIR)
  --out DIR              where LITMUS.md, litmus.csv, litmus.json go (default: .)
  --seed N               the run's seed; every launch's parameters derive from it (default 1)
  --instances N          instances per claim cell (default 100000000)
  --control-instances N  instances per control cell (default 20000000)
  --full                 MP, SB and IRIW synchronized at 1e9 instances
  --filter SUBSTR        only shapes whose name contains SUBSTR (case-insensitive)
  --variants LIST        comma-separated: sync,cta-within-cta,relaxed,cta-across-ctas
  --blocks-per-sm N      grid = N blocks on every SM (default 2)
  --threads N            threads per block (default 256)
  --strides LIST         words between instances' slots, drawn per launch (default 1,4,64,128;
                         1..=128; below 32 instances share cache lines)
  --no-handoff           skip the primitive-shaped and host/GPU tests
  --handoff-scale F      multiply their instance counts (default 1)
  --list                 print the cells and exit";

struct Options {
    ptx_dir: PathBuf,
    out: PathBuf,
    seed: u64,
    instances: u64,
    control_instances: u64,
    full: bool,
    filter: Option<String>,
    variants: Vec<Variant>,
    blocks_per_sm: u32,
    threads: u32,
    strides: Vec<u32>,
    handoff: bool,
    handoff_scale: f64,
    list: bool,
}

fn number<T: std::str::FromStr>(flag: &str, v: Option<String>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    v.replace('_', "")
        .parse()
        .map_err(|_| format!("{flag}: `{v}` is not a number"))
}

fn parse(args: Vec<String>) -> Result<Options, String> {
    let mut o = Options {
        ptx_dir: std::env::var_os("PTX_SYNC_PTX_DIR")
            .map(Into::into)
            .unwrap_or_default(),
        out: ".".into(),
        seed: 1,
        instances: 100_000_000,
        control_instances: 20_000_000,
        full: false,
        filter: None,
        variants: Variant::ALL.to_vec(),
        blocks_per_sm: 2,
        threads: 256,
        strides: ptx_sync_litmus::plan::STRIDES.to_vec(),
        handoff: true,
        handoff_scale: 1.0,
        list: false,
    };
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--ptx-dir" => o.ptx_dir = it.next().ok_or("--ptx-dir needs a value")?.into(),
            "--out" => o.out = it.next().ok_or("--out needs a value")?.into(),
            "--seed" => o.seed = number(&flag, it.next())?,
            "--instances" => o.instances = number(&flag, it.next())?,
            "--control-instances" => o.control_instances = number(&flag, it.next())?,
            "--full" => o.full = true,
            "--filter" => o.filter = Some(it.next().ok_or("--filter needs a value")?),
            "--variants" => {
                let list = it.next().ok_or("--variants needs a value")?;
                o.variants = list
                    .split(',')
                    .map(|v| {
                        Variant::ALL
                            .into_iter()
                            .find(|x| x.name() == v)
                            .ok_or_else(|| format!("unknown variant `{v}`"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--blocks-per-sm" => o.blocks_per_sm = number(&flag, it.next())?,
            "--threads" => o.threads = number(&flag, it.next())?,
            "--strides" => {
                let list = it.next().ok_or("--strides needs a value")?;
                o.strides = list
                    .split(',')
                    .map(|v| number("--strides", Some(v.to_string())))
                    .collect::<Result<_, _>>()?;
                if o.strides
                    .iter()
                    .any(|&s| s == 0 || s > ptx_sync_litmus::plan::MAX_STRIDE)
                {
                    return Err("--strides: each in 1..=128".into());
                }
            }
            "--no-handoff" => o.handoff = false,
            "--handoff-scale" => o.handoff_scale = number(&flag, it.next())?,
            "--list" => o.list = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    // Within one CTA, IRIW's four roles need four warps.
    if o.blocks_per_sm == 0 || !(128..=1024).contains(&o.threads) || !o.threads.is_multiple_of(32) {
        return Err("--blocks-per-sm must be > 0, --threads a multiple of 32 in 128..=1024".into());
    }
    if o.instances == 0 || o.control_instances == 0 {
        return Err("instance counts must be > 0".into());
    }
    if !o.list && o.ptx_dir.as_os_str().is_empty() {
        return Err("--ptx-dir is required".into());
    }
    Ok(o)
}

/// The cells to run, in report order: (shape, variant, instances).
fn cells(o: &Options) -> Vec<(&'static ptx_sync_litmus::shapes::Shape, Variant, u64)> {
    let mut v = Vec::new();
    for s in SHAPES {
        if let Some(f) = &o.filter {
            if !s.name.to_lowercase().contains(&f.to_lowercase()) {
                continue;
            }
        }
        let oracle = Oracle::new(s);
        for &variant in &o.variants {
            let n = if !oracle.forbids_weak(variant) {
                o.control_instances
            } else if o.full
                && variant == Variant::Synchronized
                && ["MP", "SB", "IRIW"].contains(&s.name)
            {
                1_000_000_000
            } else {
                o.instances
            };
            v.push((s, variant, n));
        }
    }
    v
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

fn write(path: PathBuf, text: &str) -> Result<()> {
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()).into())
}

fn run(o: Options) -> Result<bool> {
    if o.list {
        for (s, v, n) in cells(&o) {
            println!("{} {} {}", s.name, v.name(), n);
        }
        return Ok(true);
    }
    if let Err(ptx_sync_host::Error::NoDriver(why)) = ptx_sync_host::driver_available() {
        eprintln!("litmus: skipped: no CUDA driver ({why})");
        exit(2);
    }
    std::fs::create_dir_all(&o.out).map_err(|e| format!("{}: {e}", o.out.display()))?;
    let started = Instant::now();
    let mut suite = Suite::open(&o.ptx_dir, o.blocks_per_sm, o.threads)?;
    suite.knobs.strides = o.strides.clone();
    let device = suite.gpu.name();
    let g = suite.geometry;
    println!(
        "litmus on {device} ({} SMs): {} blocks x {} threads, seed {}",
        suite.gpu.sm_count(),
        g.grid_blocks,
        g.block_threads,
        o.seed
    );
    let mut rows: Vec<Row> = Vec::new();
    let mut control_launches: Vec<(Launch, u64, u64)> = Vec::new();
    let mut failure = None;
    for (shape, variant, n) in cells(&o) {
        match suite.run_cell(shape, variant, n, o.seed) {
            Ok(cell) => {
                let r = &cell.row;
                println!(
                    "{:<5} {:<16} {:>14} instances {:>9} weak ({:>8.1}/M) {:>6.1}s  {}",
                    r.test,
                    r.variant,
                    grouped(r.instances),
                    grouped(r.weak()),
                    r.weak_per_million(),
                    r.seconds,
                    r.verdict()
                );
                let _ = std::io::stdout().flush();
                if !r.claim {
                    control_launches.extend(cell.launches.iter().map(
                        |LaunchRecord {
                             launch,
                             instances,
                             weak,
                         }| (*launch, *instances, *weak),
                    ));
                }
                if !r.passed() {
                    let seeds: Vec<String> = cell
                        .launches
                        .iter()
                        .filter(|l| l.weak != 0)
                        .take(10)
                        .map(|l| l.launch.seed.to_string())
                        .collect();
                    println!(
                        "  launches with the weak outcome (seeds): {}",
                        seeds.join(", ")
                    );
                }
                rows.push(cell.row);
            }
            Err(e) => {
                // A failed launch leaves the CUDA context unusable: stop, keep what ran.
                eprintln!("litmus: {} {}: {e}", shape.name, variant.name());
                failure = Some(format!("{} {}: {e}", shape.name, variant.name()));
                break;
            }
        }
    }
    if o.handoff && failure.is_none() {
        match handoff::run(&suite.gpu, &suite.module, o.handoff_scale) {
            Ok(r) => {
                for row in &r {
                    println!(
                        "{:<20} {:>14} instances  {}",
                        row.test,
                        grouped(row.instances),
                        row.verdict()
                    );
                }
                rows.extend(r)
            }
            Err(e) => {
                eprintln!("litmus: handoff tests: {e}");
                failure = Some(format!("handoff tests: {e}"));
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("\n{}", report::table(&rows));
    let passed = failure.is_none() && rows.iter().all(Row::passed);
    let extra = [
        ("device", report::json_str(&device)),
        ("date", report::json_str(&today())),
        ("seed", o.seed.to_string()),
        ("grid_blocks", g.grid_blocks.to_string()),
        ("block_threads", g.block_threads.to_string()),
        ("seconds", format!("{seconds:.1}")),
        ("passed", passed.to_string()),
    ];
    write(o.out.join("litmus.csv"), &report::csv(&rows))?;
    write(o.out.join("litmus.json"), &report::json(&rows, &extra))?;
    let md = litmus_md(
        &o,
        &device,
        &rows,
        &control_launches,
        seconds,
        failure.as_deref(),
    );
    write(o.out.join("LITMUS.md"), &md)?;
    println!(
        "{} rows, {} passed, {:.1} s; wrote {}/{{LITMUS.md,litmus.csv,litmus.json}}",
        rows.len(),
        rows.iter().filter(|r| r.passed()).count(),
        seconds,
        o.out.display()
    );
    if let Some(f) = failure {
        return Err(f.into());
    }
    Ok(passed)
}

fn litmus_md(
    o: &Options,
    device: &str,
    rows: &[Row],
    control_launches: &[(Launch, u64, u64)],
    seconds: f64,
    failure: Option<&str>,
) -> String {
    let claims: Vec<&Row> = rows.iter().filter(|r| r.claim).collect();
    let controls: Vec<&Row> = rows.iter().filter(|r| !r.claim).collect();
    let claim_instances: u64 = claims.iter().map(|r| r.instances).sum();
    let forbidden: u64 = rows.iter().map(|r| r.forbidden()).sum();
    let sensitive = controls.iter().filter(|r| r.weak() > 0).count();
    let mut s = format!(
        "# Litmus results\n\n\
         Device: **{device}**, {date}. Generated by `cargo xtask litmus` (`litmus --seed {seed}{full}`; \
         grid {bps} blocks per SM x {threads} threads, slot strides {strides:?} words), {seconds:.0} s on the GPU machine.\n\n\
         - Claims (the PTX model forbids the weak outcome): {nclaims} rows, {ci} instances, \
         **{forbidden} forbidden outcomes**.\n\
         - Controls (the model allows the weak outcome): {sensitive} of {ncontrols} showed it.\n",
        date = today(),
        seed = o.seed,
        full = if o.full { " --full" } else { "" },
        bps = o.blocks_per_sm,
        threads = o.threads,
        strides = o.strides,
        nclaims = claims.len(),
        ci = grouped(claim_instances),
        ncontrols = controls.len(),
    );
    if let Some(f) = failure {
        s.push_str(&format!("- **The run stopped early**: {f}\n"));
    }
    s.push_str(
        "\nVariants: `sync` = every store `st.release.gpu`, every load `ld.acquire.gpu`, the \
         shape's fences `fence.sc.gpu`, roles in different CTAs; `cta-within-cta` = the same at \
         `.cta` with every role in one CTA (different warps); `relaxed` = every access \
         `.relaxed.gpu`, no fences, across CTAs; `cta-across-ctas` = the `sync` code at `.cta` \
         scope run across CTAs (too narrow a scope). Each testing thread plays every role of a \
         shape, each for a different instance; the rest of the grid stresses memory; stress \
         parameters are drawn per launch from the seed. Outcomes are registers in load order, \
         then final values; the oracle (`litmus/src/oracle.rs`) marks the shape's weak outcome \
         (weak) or FORBIDDEN, and anything that is neither SC nor weak IMPOSSIBLE.\n\n\
         The primitive-shaped rows (mutex handoff to grid barrier) count reads of data handed \
         over through the crate's primitive: `ok`, `stale` (FORBIDDEN), `lost` (a bounded wait \
         gave up: IMPOSSIBLE). Their `relaxed` rows are controls: the same algorithm with every \
         order relaxed (`litmus/kernels/src/handoff.rs`), where `stale` is the weak outcome the \
         model allows. The `sys` rows are MP between a host thread and the GPU on mapped host \
         memory.\n\n",
    );
    s.push_str(&report::markdown_table(rows));
    if !control_launches.is_empty() {
        s.push_str(
            "\n## Weak outcomes of the controls by stress parameter\n\n\
             Every control launch, grouped by the value each stress parameter had in it.\n\n",
        );
        s.push_str(&tuning::markdown(control_launches));
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("litmus: {e}\n{USAGE}");
            exit(1);
        }
    };
    match run(o) {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("litmus: FAILED: a row shows a forbidden or impossible outcome");
            exit(1);
        }
        Err(e) => {
            eprintln!("litmus: error: {e}");
            exit(1);
        }
    }
}
