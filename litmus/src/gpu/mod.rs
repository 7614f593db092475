//! Runs the litmus cells on a GPU: per launch, the shape's kernel (cooperative, so every block
//! is resident for the rendezvous) and `litmus_tally` (outcomes into a per-launch histogram on
//! the GPU); per batch of launches, one download of the histograms.

pub mod handoff;

use crate::launch::{Launch, BINS, GARBAGE_BIN, LAUNCH_WORDS};
use crate::oracle::{Class, Oracle, Variant};
use crate::plan::{draw, kernel_name, launch_seed, Geometry, Knobs, SCRATCH_WORDS};
use crate::report::{Outcome, Row};
use crate::shapes::Shape;
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::{Device, Module};
use ptx_sync_testkit::{launch_config, Error, Result};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::Path;
use std::time::{Duration, Instant};

/// The PTX file of litmus/kernels.
pub const KERNELS_PTX: &str = "ptx_sync_litmus_kernels.ptx";
/// Launches per batch (one histogram download each).
const BATCH: usize = 128;
/// The watchdog: one batch may take this long.
const BATCH_TIMEOUT: Duration = Duration::from_secs(60);
/// Threads per block of the tally kernel.
const TALLY_THREADS: u32 = 256;

/// One launch's parameters and what it showed.
#[derive(Clone, Debug)]
pub struct LaunchRecord {
    pub launch: Launch,
    pub instances: u64,
    pub weak: u64,
}

/// A cell's report row and its launches.
pub struct CellRun {
    pub row: Row,
    pub launches: Vec<LaunchRecord>,
}

/// The GPU, the litmus module and the buffers every cell reuses.
pub struct Suite {
    pub gpu: Device,
    pub module: Module,
    pub geometry: Geometry,
    /// What launches may be drawn with (`--strides`).
    pub knobs: Knobs,
    mem: CudaSlice<u32>,
    out: CudaSlice<u32>,
    scratch: CudaSlice<u32>,
    meet: CudaSlice<u32>,
}

/// Turns an error into a failed check that says what was being done: `what: error`.
pub(crate) fn context<E: Display>(what: impl Display) -> impl FnOnce(E) -> Error {
    move |e| Error::Check(format!("{what}: {e}"))
}

/// The words of a launch, as uploaded.
pub fn launch_words(l: &Launch) -> &[u32] {
    // SAFETY: `Launch` is `repr(C)` and all `u32` (no padding), LAUNCH_WORDS long.
    unsafe { std::slice::from_raw_parts(l as *const Launch as *const u32, LAUNCH_WORDS) }
}

/// The values of histogram bin `bin` for an outcome of `len` values (`None`: garbage).
pub fn decode(bin: u32, len: usize) -> Option<Vec<u32>> {
    if bin == GARBAGE_BIN || (len < 4 && bin >> (2 * len) != 0) {
        return None;
    }
    Some((0..len).map(|k| (bin >> (2 * k)) & 3).collect())
}

impl Suite {
    /// Opens GPU 0, loads `ptx_dir/ptx_sync_litmus_kernels.ptx`, and sizes the grid:
    /// `blocks_per_sm` blocks of `block_threads` on every SM, refused (with the limit) if a
    /// cooperative launch could not hold them.
    pub fn open(ptx_dir: &Path, blocks_per_sm: u32, block_threads: u32) -> Result<Suite> {
        let gpu = Device::open(0)?;
        let module = gpu.load_ptx(ptx_dir.join(KERNELS_PTX))?;
        let geometry = Geometry {
            grid_blocks: blocks_per_sm * gpu.sm_count(),
            block_threads,
        };
        // The largest kernel (IRIW, four roles) decides what fits.
        let probe = module.kernel("litmus_iriw_sync_gpu")?;
        gpu.check_cooperative(&probe, geometry.grid_blocks, block_threads, 0)?;
        let stream = gpu.stream().clone();
        let mem = stream
            .alloc_zeros::<u32>(geometry.max_test_words() as usize)
            .map_err(context("allocating test memory"))?;
        let out = stream
            .alloc_zeros::<u32>(geometry.max_out_words() as usize)
            .map_err(context("allocating registers"))?;
        let scratch = stream
            .alloc_zeros::<u32>(SCRATCH_WORDS as usize)
            .map_err(context("allocating scratch"))?;
        let meet = stream
            .alloc_zeros::<u32>(1)
            .map_err(context("allocating"))?;
        Ok(Suite {
            gpu,
            module,
            geometry,
            knobs: Knobs::default(),
            mem,
            out,
            scratch,
            meet,
        })
    }

    /// Runs (`shape`, `variant`) until at least `instances` instances have run, every launch
    /// drawn from `base_seed`.
    pub fn run_cell(
        &mut self,
        shape: &'static Shape,
        variant: Variant,
        instances: u64,
        base_seed: u64,
    ) -> Result<CellRun> {
        let started = Instant::now();
        let name = kernel_name(shape, variant);
        let kernel = self.module.kernel(&name)?;
        let tally = self.module.kernel("litmus_tally")?;
        let g = self.geometry;
        let cfg = self
            .gpu
            .cooperative_config(&kernel, g.grid_blocks, g.block_threads, 0)?;
        let threads = g.grid_blocks * g.block_threads;
        let tally_cfg = launch_config(threads.div_ceil(TALLY_THREADS), TALLY_THREADS, BINS * 4);
        let len = shape.outcome_len();
        let oracle = Oracle::new(shape);
        let stream = self.gpu.stream().clone();
        let mut hist: BTreeMap<u32, u64> = BTreeMap::new();
        let mut records = Vec::new();
        let mut done = 0u64;
        while done < instances {
            let mut batch = Vec::new();
            let mut planned = done;
            while batch.len() < BATCH && planned < instances {
                let seed = launch_seed(
                    base_seed,
                    shape.name,
                    variant,
                    records.len() as u64 + batch.len() as u64,
                );
                let l = draw(shape, variant, g, &self.knobs, seed)?;
                planned += l.instances() as u64;
                batch.push(l);
            }
            let words: Vec<u32> = batch
                .iter()
                .flat_map(|l| launch_words(l).to_vec())
                .collect();
            let params = stream
                .clone_htod(&words)
                .map_err(context("uploading launches"))?;
            let mut counts = stream
                .alloc_zeros::<u64>(batch.len() * BINS as usize)
                .map_err(context("allocating histograms"))?;
            for k in 0..batch.len() {
                let p = params.slice(k * LAUNCH_WORDS..(k + 1) * LAUNCH_WORDS);
                let mut b = stream.launch_builder(kernel.function());
                b.arg(&p)
                    .arg(&self.mem)
                    .arg(&self.out)
                    .arg(&self.scratch)
                    .arg(&self.meet);
                unsafe { b.launch_cooperative(cfg) }.map_err(context(&name))?;
                let mut h = counts.slice_mut(k * BINS as usize..(k + 1) * BINS as usize);
                let mut b = stream.launch_builder(tally.function());
                b.arg(&p)
                    .arg(&self.mem)
                    .arg(&self.out)
                    .arg(&self.meet)
                    .arg(&mut h);
                unsafe { b.launch(tally_cfg) }.map_err(context("litmus_tally"))?;
            }
            self.gpu.wait(BATCH_TIMEOUT).map_err(context(&name))?;
            let counts = stream
                .clone_dtoh(&counts)
                .map_err(context("downloading histograms"))?;
            for (l, h) in batch.iter().zip(counts.chunks(BINS as usize)) {
                let mut weak = 0;
                let mut total = 0;
                for (bin, &c) in h.iter().enumerate() {
                    if c == 0 {
                        continue;
                    }
                    total += c;
                    *hist.entry(bin as u32).or_default() += c;
                    if decode(bin as u32, len).as_deref() == Some(shape.weak) {
                        weak += c;
                    }
                }
                if total != l.instances() as u64 {
                    return Err(format!(
                        "{name}: launch seed {} tallied {total} outcomes of {} instances",
                        l.seed,
                        l.instances()
                    )
                    .into());
                }
                records.push(LaunchRecord {
                    launch: *l,
                    instances: total,
                    weak,
                });
                done += total;
            }
        }
        let outcomes = hist
            .iter()
            .map(|(&bin, &count)| match decode(bin, len) {
                Some(v) => Outcome {
                    label: format!("{v:?}"),
                    count,
                    class: oracle.classify(&v, variant),
                },
                None => Outcome {
                    label: "value > 3".into(),
                    count,
                    class: Class::Impossible,
                },
            })
            .collect();
        let row = Row {
            test: shape.name.into(),
            variant: variant.name().into(),
            scope: variant.scope().into(),
            placement: if variant.within_cta() {
                "one CTA".into()
            } else {
                "across CTAs".into()
            },
            instances: done,
            outcomes,
            launches: records.len() as u64,
            seconds: started.elapsed().as_secs_f64(),
            claim: oracle.forbids_weak(variant),
        };
        Ok(CellRun {
            row,
            launches: records,
        })
    }
}
