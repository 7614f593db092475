//! `bench-nvshmem`: NVSHMEM operations from Rust kernels (tests/nvshmem-kernels/src/bench.rs,
//! through ptx-sync's bindings) against the same kernels in CUDA C++ (bench/cpp/nvshmem.cu,
//! nvcc -rdc and a device link with libnvshmem_device.a), one PE per GPU, both modules loaded
//! into the same processes and registered with NVSHMEM the same way, so only the kernels differ.
//! Rows: put_signal ping-pong round trip, `barrier_all`, remote `atomic_add` throughput, and
//! ptx-sync's `Barrier<Sys>` through `ptr(0)` against NVSHMEM's `barrier_all` (C++).
//!
//! `bench-nvshmem --ptx FILE [--reference CUBIN] [--markdown FILE] [--json FILE] [--samples N]`.
//! Started without a PE in the environment it starts one process per GPU (two) and waits.

use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::nvshmem::{LocalLauncher, World};
use ptx_sync_host::ptx_sync::barrier::init_word;
use ptx_sync_host::{launch_config, Module};
use std::path::PathBuf;
use std::process::exit;
use std::time::Duration;

const PES: u32 = 2;
const WAIT: Duration = Duration::from_secs(60);

struct Args {
    ptx: PathBuf,
    reference: Option<PathBuf>,
    markdown: Option<PathBuf>,
    json: Option<PathBuf>,
    samples: usize,
}

fn parse(argv: &[String]) -> Result<Args, String> {
    let mut a = Args {
        ptx: PathBuf::new(),
        reference: None,
        markdown: None,
        json: None,
        samples: 5,
    };
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--ptx" => a.ptx = value()?.into(),
            "--reference" => a.reference = Some(value()?.into()),
            "--markdown" => a.markdown = Some(value()?.into()),
            "--json" => a.json = Some(value()?.into()),
            "--samples" => {
                a.samples = value()?
                    .parse()
                    .map_err(|_| "--samples needs a positive integer".to_string())?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.ptx.as_os_str().is_empty() {
        return Err("--ptx FILE is required (ptx_sync_nvshmem_test_kernels.ptx)".into());
    }
    Ok(a)
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = parse(&argv).unwrap_or_else(|e| {
        eprintln!("bench-nvshmem: {e}");
        exit(2)
    });
    if std::env::var_os("PTX_SYNC_PE").is_none() {
        let exe = std::env::current_exe().expect("the program's own path");
        match LocalLauncher::new(&exe).args(&argv).n_pes(PES).run() {
            Ok(outs) if outs.iter().all(|o| o.status.success()) => exit(0),
            Ok(outs) => {
                for o in outs {
                    eprintln!("bench-nvshmem: PE {} ended with {}", o.pe, o.describe());
                }
                exit(1)
            }
            Err(e) => {
                eprintln!("bench-nvshmem: {e}");
                exit(1)
            }
        }
    }
    if let Err(e) = pe(&args) {
        eprintln!("bench-nvshmem: {e}");
        exit(1);
    }
}

/// One measured row: nanoseconds per unit for each side.
struct Row {
    case: &'static str,
    unit: &'static str,
    rust: f64,
    cpp: Option<f64>,
    /// The R/C the row must reach; NaN for a row that explains another and has no C++ side.
    target: f64,
    what: String,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn pe(args: &Args) -> R<()> {
    let world = World::from_env()?;
    let me = world.my_pe();
    let rust = world.load_ptx(&args.ptx)?;
    let cpp = match &args.reference {
        Some(p) => Some(world.load_cubin(p, "nvb_pingpong")?),
        None => None,
    };
    let gpu = world.gpu();
    let mut rows = Vec::new();
    let sides = |f: &dyn Fn(&Module) -> R<f64>| -> R<(f64, Option<f64>)> {
        let r = median((0..args.samples).map(|_| f(&rust)).collect::<R<Vec<_>>>()?);
        let c = match &cpp {
            Some(m) => Some(median(
                (0..args.samples).map(|_| f(m)).collect::<R<Vec<_>>>()?,
            )),
            None => None,
        };
        Ok((r, c))
    };

    // put_signal ping-pong: PE 0 <-> PE 1, one thread each.
    const PP: u32 = 10_000;
    let (r, c) = sides(&|m| {
        let data = world.alloc::<u64>(2)?;
        let sig = world.alloc::<u64>(1)?;
        let out = gpu.zeros::<u64>(2)?;
        world.barrier_all()?;
        let k = m.kernel("nvb_pingpong")?;
        let mut l = gpu.launch_builder(&k);
        l.arg(data.device_ptr())
            .arg(sig.device_ptr())
            .arg(PP)
            .arg(&out);
        unsafe { l.launch_cooperative(launch_config(1, 1, 0)) }?;
        world.wait(WAIT)?;
        world.barrier_all()?;
        Ok(gpu.download(&out)?[0] as f64 / PP as f64)
    })?;
    rows.push(Row { case: "nvshmem/put_signal_pingpong", unit: "round trip", rust: r, cpp: c, target: 1.0,
        what: format!("PE 0 -> PE 1 -> PE 0, one u64 put_signal (Set) each way, signal_wait_until, {PP} round trips, one thread per PE") });

    // barrier_all: one thread per PE.
    const BAR: u32 = 10_000;
    let (r, c) = sides(&|m| {
        let out = gpu.zeros::<u64>(2)?;
        world.barrier_all()?;
        let k = m.kernel("nvb_barrier_all")?;
        let mut l = gpu.launch_builder(&k);
        l.arg(BAR).arg(&out);
        unsafe { l.launch_cooperative(launch_config(1, 1, 0)) }?;
        world.wait(WAIT)?;
        world.barrier_all()?;
        Ok(gpu.download(&out)?[0] as f64 / BAR as f64)
    })?;
    rows.push(Row {
        case: "nvshmem/barrier_all",
        unit: "barrier",
        rust: r,
        cpp: c,
        target: 1.0,
        what: format!("{BAR} nvshmem_barrier_all by one thread per PE"),
    });
    let barrier_all_cpp = c;

    // Remote atomic_add throughput: every thread of the grid adds to the next PE.
    const GRID: u32 = 132;
    const BLOCK: u32 = 256;
    const ITERS: u32 = 64;
    let (r, c) = sides(&|m| {
        let counter = world.alloc::<u64>(1)?;
        let out = gpu.upload(&[u64::MAX, 0])?;
        world.barrier_all()?;
        let k = m.kernel("nvb_atomic_add")?;
        let mut l = gpu.launch_builder(&k);
        l.arg(counter.device_ptr()).arg(ITERS).arg(&out);
        unsafe { l.launch_cooperative(launch_config(GRID, BLOCK, 0)) }?;
        world.wait(WAIT)?;
        world.barrier_all()?;
        let ops = (GRID * BLOCK * ITERS) as u64;
        let got = counter.download()?[0];
        if got != ops {
            return Err(
                format!("PE {me}'s counter is {got} after the peer's {ops} atomic_adds").into(),
            );
        }
        let t = gpu.download(&out)?;
        Ok((t[1] - t[0]) as f64 / ops as f64)
    })?;
    rows.push(Row { case: "nvshmem/atomic_add_throughput", unit: "atomic (per PE)", rust: r, cpp: c, target: 1.0,
        what: format!("{GRID} blocks x {BLOCK} threads x {ITERS} nvshmem_uint64_atomic_add to the next PE, then quiet; counter checked exactly") });

    // ptx-sync's Barrier<Sys> on PE 0's memory through ptr(0), against C++ barrier_all.
    for (kernel, case, policy) in [
        (
            "nvb_sys_barrier",
            "nvshmem/sys_barrier_vs_barrier_all",
            "NanoSleep (the default)",
        ),
        (
            "nvb_sys_barrier_spin",
            "nvshmem/sys_barrier_spin_vs_barrier_all",
            "Spin",
        ),
    ] {
        let sys = median(
            (0..args.samples)
                .map(|_| -> R<f64> {
                    let buf = world.alloc::<u64>(16)?;
                    if me == 0 {
                        buf.write(0, &[init_word(world.n_pes())])?;
                    }
                    let out = gpu.zeros::<u64>(2)?;
                    world.barrier_all()?;
                    let k = rust.kernel(kernel)?;
                    let mut l = gpu.launch_builder(&k);
                    l.arg(buf.device_ptr()).arg(BAR).arg(&out);
                    unsafe { l.launch_cooperative(launch_config(1, 1, 0)) }?;
                    world.wait(WAIT)?;
                    world.barrier_all()?;
                    let o = gpu.download(&out)?;
                    if o[1] != 0 {
                        return Err(
                            "nvshmem_ptr(PE 0) is null: no load/store path between the GPUs".into(),
                        );
                    }
                    Ok(o[0] as f64 / BAR as f64)
                })
                .collect::<R<Vec<_>>>()?,
        );
        rows.push(Row { case, unit: "barrier", rust: sys, cpp: barrier_all_cpp, target: 0.5,
        what: format!("ptx-sync Barrier<Sys, {policy}> in PE 0's memory through ptr(0), {BAR} phases, one thread per PE; C++: nvshmem_barrier_all") });
    }

    // What a phase of Barrier<Sys> in PE 0's memory costs PE 1: the link's round trips, timed
    // on PE 1 and handed to PE 0's report through its symmetric memory (Rust only: the row
    // explains the barrier's, it compares with nothing).
    let trips = world.alloc::<u64>(16)?;
    let out = gpu.zeros::<u64>(4)?;
    world.barrier_all()?;
    let k = rust.kernel("nvb_link_round_trips")?;
    let mut l = gpu.launch_builder(&k);
    l.arg(trips.device_ptr()).arg(BAR).arg(0u64).arg(&out);
    unsafe { l.launch_cooperative(launch_config(1, 1, 0)) }?;
    world.wait(WAIT)?;
    if gpu.download(&out)?[2] != 0 {
        return Err("nvshmem_ptr(PE 0) is null: no load/store path between the GPUs".into());
    }
    // PE 1's kernel wrote its times into PE 0's copy, complete when the barrier returns.
    world.barrier_all()?;
    let t = trips.download()?;
    if me == 0 {
        for (case, what, ns) in [
            ("nvshmem/link_rtt_atomic", "atom.acq_rel.sys.add", t[8]),
            ("nvshmem/link_rtt_load", "ld.acquire.sys", t[9]),
        ] {
            rows.push(Row {
                case,
                unit: "round trip",
                rust: ns as f64 / BAR as f64,
                cpp: None,
                target: f64::NAN,
                what: format!("{BAR} dependent {what} by PE 1 on PE 0's memory through ptr(0): what one phase of Barrier<Sys> in PE 0's memory costs PE 1 (no C++ side)"),
            });
        }
    }
    if me == 0 {
        report(&world, args, &rows)?;
    }
    world.barrier_all()?;
    Ok(())
}

fn report(world: &World, args: &Args, rows: &[Row]) -> R<()> {
    let dev = world.gpu().name();
    let mut md = format!(
        "### NVSHMEM, {} PEs on {} x {dev} (one process per GPU)\n\n| case | unit | Rust ns | C++ ns | R/C | target | what |\n|---|---|---:|---:|---:|---:|---|\n",
        world.n_pes(),
        world.n_pes()
    );
    let mut json = String::from("[\n");
    for (i, r) in rows.iter().enumerate() {
        let (cpp, ratio) = match r.cpp {
            Some(c) => (format!("{c:.3}"), format!("{:.2}", r.rust / c)),
            None => ("-".into(), "-".into()),
        };
        let (target, target_json) = if r.target.is_nan() {
            ("-".to_string(), "null".to_string())
        } else {
            (format!("<= {:.2}", r.target), r.target.to_string())
        };
        md += &format!(
            "| {} | {} | {:.3} | {cpp} | {ratio} | {target} | {} |\n",
            r.case, r.unit, r.rust, r.what
        );
        json += &format!(
            "  {{\"case\": \"{}\", \"unit\": \"{}\", \"rust_ns\": {:.3}, \"cpp_ns\": {}, \"target\": {}, \"device\": \"{dev}\"}}{}\n",
            r.case,
            r.unit,
            r.rust,
            r.cpp.map(|c| format!("{c:.3}")).unwrap_or_else(|| "null".into()),
            target_json,
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json += "]\n";
    print!("{md}");
    if let Some(p) = &args.markdown {
        std::fs::write(p, &md)?;
    }
    if let Some(p) = &args.json {
        std::fs::write(p, &json)?;
    }
    Ok(())
}
