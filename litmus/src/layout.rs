//! Where each role of each instance runs and where its locations live.
//!
//! With `n` threads in the launch, instance `i` puts role `r` on thread `(i * p + r * shift)
//! mod n` for a multiplier `p` coprime to `n` (see [`Permutation`]). Locations of one instance
//! are `stride` words apart, and instances interleave, so no two test locations share 64 words.

/// Greatest common divisor.
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The smallest multiplier `>= from` coprime to `n`.
pub fn coprime_from(n: u64, from: u64) -> u64 {
    (from.max(2)..)
        .find(|&p| gcd(p, n) == 1)
        .expect("a coprime exists")
}

/// The role-to-thread map of one launch: role `r` of instance `i` runs on thread
/// `(i * multiplier + r * shift) mod threads`. Each role is a bijection (the multiplier is
/// coprime to the thread count), so every thread plays every role once per launch; `shift` is
/// a whole number of blocks, one more than `blocks / roles` where that still fits, so the roles
/// of an instance sit in different CTAs and not `blocks / 2` apart (where a 2-blocks-per-SM
/// launch would put them on one SM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permutation {
    pub threads: u64,
    pub block: u64,
    pub multiplier: u64,
    pub shift: u64,
}

impl Permutation {
    /// The first valid permutation for `threads` threads in blocks of `block` threads and
    /// `roles` roles, searching multipliers from one derived from `seed` (recorded per launch).
    /// `None` if there is none (fewer than `roles` blocks).
    pub fn new(threads: u64, block: u64, roles: u32, seed: u64) -> Option<Permutation> {
        if block == 0 || !threads.is_multiple_of(block) || threads / block < roles as u64 {
            return None;
        }
        let blocks = threads / block;
        let apart = blocks / roles as u64;
        let apart = if (roles as u64 - 1) * (apart + 1) < blocks {
            apart + 1
        } else {
            apart
        };
        let shift = block * apart;
        let mut from = block + 1 + seed % threads;
        for _ in 0..64 {
            let multiplier = coprime_from(threads, from);
            let p = Permutation {
                threads,
                block,
                multiplier,
                shift,
            };
            if p.roles_in_distinct_ctas(roles) {
                return Some(p);
            }
            from = multiplier + 1;
        }
        None
    }

    /// The thread that plays `role` of instance `instance`.
    pub fn thread(&self, instance: u64, role: u32) -> u64 {
        let i = instance % self.threads;
        (i * self.multiplier + role as u64 * self.shift) % self.threads
    }

    /// Whether every instance's roles run in pairwise different CTAs.
    pub fn roles_in_distinct_ctas(&self, roles: u32) -> bool {
        (0..self.threads).all(|i| {
            let ctas: Vec<u64> = (0..roles).map(|r| self.thread(i, r) / self.block).collect();
            ctas.iter()
                .enumerate()
                .all(|(a, x)| ctas[a + 1..].iter().all(|y| y != x))
        })
    }
}

/// Word index of location `loc` of instance `instance`: every test location (any instance, any
/// location) gets its own `stride`-word slot, so no two share a `stride`-word window.
pub fn word(instance: u64, loc: u64, locations: u64, stride: u64) -> u64 {
    (instance * locations + loc) * stride
}

/// The inverse of `p` modulo `n` (`p` coprime to `n`).
pub fn inverse(p: u64, n: u64) -> u64 {
    let (mut t, mut new_t, mut r, mut new_r) = (0i128, 1i128, n as i128, (p % n) as i128);
    while new_r != 0 {
        let q = r / new_r;
        (t, new_t) = (new_t, t - q * new_t);
        (r, new_r) = (new_r, r - q * new_r);
    }
    assert_eq!(r, 1, "{p} is not invertible modulo {n}");
    t.rem_euclid(n as i128) as u64
}

/// One role per thread: the threads are split into `roles` contiguous groups of whole blocks
/// (so the roles of an instance run in different CTAs, and with blocks dealt round-robin to
/// SMs, on different SMs), and within group `r` the thread with local index `j` plays role `r`
/// of instance `(j * multiplier) mod group`, a coprime permutation that changes per launch.
/// Every thread runs at once after the rendezvous, so the two sides of an instance overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Groups {
    /// Threads per group (= instances per launch), a whole number of blocks.
    pub group: u64,
    pub multiplier: u64,
}

impl Groups {
    /// `None` if there are fewer blocks than roles.
    pub fn new(threads: u64, block: u64, roles: u32, seed: u64) -> Option<Groups> {
        let blocks = threads.checked_div(block)?;
        let per = blocks / roles as u64;
        if per == 0 {
            return None;
        }
        let group = per * block;
        let multiplier = coprime_from(group, 3 + seed % group);
        Some(Groups { group, multiplier })
    }

    /// (instance, role) of `thread`, or `None` for a thread beyond the last group.
    pub fn role_of(&self, thread: u64, roles: u32) -> Option<(u64, u32)> {
        let r = thread / self.group;
        (r < roles as u64).then(|| {
            (
                (thread % self.group) * self.multiplier % self.group,
                r as u32,
            )
        })
    }
}
