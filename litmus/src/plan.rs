//! What each launch of a cell runs: its [`Launch`] drawn from a seed (placement, location
//! permutation, stress), and the checks that make a drawn launch trustworthy. GPU-free.

use crate::launch::{Launch, MAX_LOCATIONS, MAX_REGS, NO_FINAL, REGION_GAP};
use crate::layout::gcd;
use crate::oracle::Variant;
use crate::shapes::Shape;

/// SplitMix64: small, seedable, good enough to pick stress parameters.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// The seed of launch `launch` of cell (`shape`, `variant`) in a run seeded with `base`: every
/// launch is reproducible from the run's seed alone.
pub fn launch_seed(base: u64, shape: &str, variant: Variant, launch: u64) -> u32 {
    let mut h = base ^ 0x6c69_746d_7573; // "litmus"
    for b in shape.bytes().chain(variant.name().bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let mut rng = Rng::new(h ^ launch.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    rng.next_u64() as u32
}

/// The grid every launch of a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub grid_blocks: u32,
    pub block_threads: u32,
}

/// Scratch area for memory stress, in words (4 MiB).
pub const SCRATCH_WORDS: u32 = 1 << 20;
/// The widest slot stride a draw uses.
pub const MAX_STRIDE: u32 = 128;

/// What a draw may choose from beyond the fixed sets below (set from the command line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knobs {
    /// Words between consecutive slots of one location region. Below 32 several instances
    /// share a 128-byte line (one instance's own locations are always in different regions).
    pub strides: Vec<u32>,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            strides: STRIDES.to_vec(),
        }
    }
}

/// The stress parameter sets a draw chooses from (the report tallies weak outcomes by each).
pub const STRESS_ITERS: &[u32] = &[0, 64, 256, 1024];
pub const PRE_STRESS_ITERS: &[u32] = &[0, 16, 64, 256];
pub const STRESS_LINES: &[u32] = &[1, 2, 4, 8, 16];
pub const STRESS_LINE_WORDS: &[u32] = &[32, 64, 128];
/// Slot strides: 1 and 4 put several instances in one 128-byte line, which is what lets a
/// `.cta`-scope load hit a stale L1 line (on an H100 the `.cta`-across-CTAs WRC, IRIW and RWC
/// controls showed weak outcomes only there); 64 and 128 give the relaxed controls their
/// highest rates. One instance's own locations are always in different regions.
pub const STRIDES: &[u32] = &[1, 4, 64, 128];

impl Geometry {
    /// Words of test memory any launch of this geometry may use.
    pub fn max_test_words(&self) -> u64 {
        let slots = self.grid_blocks as u64 * self.block_threads as u64 * MAX_STRIDE as u64;
        MAX_LOCATIONS as u64 * (slots + REGION_GAP)
    }

    /// Output registers for the largest launch.
    pub fn max_out_words(&self) -> u64 {
        MAX_REGS as u64 * self.grid_blocks as u64 * self.block_threads as u64
    }
}

/// Whether `n` is prime.
pub fn is_prime(n: u32) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

/// The largest prime `<= n`, if any.
pub fn prime_at_most(n: u32) -> Option<u32> {
    (2..=n).rev().find(|&p| is_prime(p))
}

/// The kernel that runs `shape` as `variant`: `litmus_<shape>_<suffix>` (`2+2W` -> `2p2w`).
pub fn kernel_name(shape: &Shape, variant: Variant) -> String {
    format!(
        "litmus_{}_{}",
        shape.name.to_lowercase().replace('+', "p"),
        variant.kernel_suffix()
    )
}

/// Draws launch `seed` of (`shape`, `variant`) on `geometry`. What it returns always passes
/// [`check`] (it redraws what fails, from the same seed's stream); a geometry too small for
/// the shape (fewer testing blocks or warps per block than roles) is an error that says so.
pub fn draw(
    shape: &Shape,
    variant: Variant,
    geometry: Geometry,
    knobs: &Knobs,
    seed: u32,
) -> Result<Launch, String> {
    let mut rng = Rng::new(seed as u64 ^ 0xa076_1d64_78bd_642f);
    let (b, w) = (geometry.grid_blocks, geometry.block_threads);
    let roles = shape.threads.len() as u32;
    let mut finals = [NO_FINAL; 2];
    for (f, &l) in finals.iter_mut().zip(shape.finals) {
        *f = l as u32;
    }
    let mut l = Launch {
        seed,
        grid_blocks: b,
        block_threads: w,
        within_cta: variant.within_cta() as u32,
        roles,
        locations: shape.locations() as u32,
        regs: (shape.outcome_len() - shape.finals.len()) as u32,
        finals,
        scratch_words: SCRATCH_WORDS,
        ..Launch::default()
    };
    for _ in 0..1000 {
        // Between half the grid and all of it tests; the rest stresses. Across CTAs the count
        // is prime, so any block step in 1..T separates the roles (see launch.rs).
        let t = rng.range((b as u64 / 2).max(1), b as u64) as u32;
        l.testing_blocks = if variant.within_cta() {
            t
        } else {
            prime_at_most(t).unwrap_or(t)
        };
        l.block_mul = loop {
            let m = rng.range(1, b as u64) as u32;
            if gcd(m as u64, b as u64) == 1 {
                break m;
            }
        };
        l.block_add = rng.below(b as u64) as u32;
        l.lane_step = rng.range(32, (w as u64).saturating_sub(32).max(32)) as u32;
        l.step_mul = rng.range(1, 1 << 20) as u32;
        l.step_add = rng.below(1 << 20) as u32;
        let n = l.instances() as u64;
        for m in l.loc_mul.iter_mut() {
            *m = loop {
                let m = rng.range(1, n.max(2) - 1).max(1);
                if gcd(m, n) == 1 {
                    break m as u32;
                }
            };
        }
        l.stride = rng.pick(&knobs.strides);
        l.stress_lines = rng.pick(STRESS_LINES);
        l.stress_line_words = rng.pick(STRESS_LINE_WORDS);
        l.stress_line_offset = rng.below(SCRATCH_WORDS as u64 / l.stress_line_words as u64) as u32;
        l.stress_iters = rng.pick(STRESS_ITERS);
        l.stress_pattern = rng.below(4) as u32;
        l.pre_stress_iters = rng.pick(PRE_STRESS_ITERS);
        l.pre_stress_pattern = rng.below(4) as u32;
        l.rendezvous = (rng.below(8) != 0) as u32;
        if check(&l).is_ok() {
            return Ok(l);
        }
    }
    Err(format!(
        "no valid launch of {} ({}) on {b} blocks x {w} threads in 1000 draws: its {roles} roles \
         need {roles} warps per block within one CTA, or a prime count of at least {roles} \
         testing blocks (half the grid or more) across CTAs; raise --threads or --blocks-per-sm",
        shape.name,
        variant.name()
    ))
}

/// Checks everything the kernels rely on: sizes within the buffers, each (instance, role)
/// played once, the roles of every instance in different CTAs (or, within one CTA, in
/// different warps), location permutations that are bijections.
pub fn check(l: &Launch) -> Result<(), String> {
    let (t, w) = (l.testing_blocks, l.block_threads);
    if w == 0 || w % 32 != 0 || w > 1024 {
        return Err(format!(
            "block of {w} threads: not a multiple of 32 in 32..=1024"
        ));
    }
    if t == 0 || t > l.grid_blocks {
        return Err(format!("{t} testing blocks of {}", l.grid_blocks));
    }
    if l.roles == 0 || l.roles > 4 || l.locations == 0 || l.locations > MAX_LOCATIONS {
        return Err(format!("{} roles, {} locations", l.roles, l.locations));
    }
    let finals = l.finals.iter().filter(|&&f| f != NO_FINAL).count() as u32;
    if l.regs + finals > MAX_REGS {
        return Err(format!(
            "{} registers + {finals} finals > {MAX_REGS}",
            l.regs
        ));
    }
    if l.finals.iter().any(|&f| f != NO_FINAL && f >= l.locations) {
        return Err("a final location the shape does not use".into());
    }
    if gcd(l.block_mul as u64, l.grid_blocks as u64) != 1 {
        return Err("block shuffle is not a permutation".into());
    }
    let n = l.instances() as u64;
    if l.loc_mul[..l.locations as usize]
        .iter()
        .any(|&m| gcd(m as u64, n) != 1)
    {
        return Err("a location permutation is not a bijection".into());
    }
    // One instance's locations lie in different regions, at least `stride + REGION_GAP`
    // words apart whatever their slots (see `Launch::region_words`).
    if l.stride == 0 || l.stride > MAX_STRIDE {
        return Err(format!("stride {} outside 1..={MAX_STRIDE}", l.stride));
    }
    if l.stress_lines == 0 || l.stress_line_words == 0 || l.scratch_words / l.stress_line_words == 0
    {
        return Err("empty stress area".into());
    }
    if l.within_cta != 0 {
        // Role `r` of the instance at lane `j` is played by lane `(j - r * lane_step) mod W`.
        for j in 0..w as u64 {
            let warps: Vec<u64> = (0..l.roles as u64)
                .map(|r| (j + 4 * w as u64 - r * l.lane_step as u64 % w as u64) % w as u64 / 32)
                .collect();
            if !distinct(&warps) {
                return Err(format!(
                    "lane step {}: the roles of lane {j}'s instance share a warp",
                    l.lane_step
                ));
            }
        }
    } else {
        if t < l.roles {
            return Err(format!("{t} testing blocks for {} roles", l.roles));
        }
        for lane in 0..w {
            let d = l.block_step(lane) as u64;
            if (1..l.roles as u64).any(|k| (k * d).is_multiple_of(t as u64)) {
                return Err(format!(
                    "block step {d} of lane {lane} repeats a CTA mod {t}"
                ));
            }
        }
    }
    Ok(())
}

fn distinct(v: &[u64]) -> bool {
    v.iter()
        .enumerate()
        .all(|(i, a)| v[i + 1..].iter().all(|b| b != a))
}
