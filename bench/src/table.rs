//! The per-bucket-lock hash table of the `hash_table/*` rows, shared as source by the host
//! runner (which computes the expected table) and the Rust kernel (bench/kernels). The CUDA C++
//! side (bench/cpp/reference.cu, `Bucket`, `table_key`, `table_bucket`, `bucket_insert`)
//! repeats it line for line: the same keys, the same buckets, the same critical section.
//!
//! Insert number `n` (thread `tid`'s `i`th insert is `tid * iters + i`) inserts the key
//! `mix(n) % KEYS` into bucket `mix(key ^ SALT) >> 16`: random keys with duplicates (the
//! 132 x 256 row inserts each key about 16 times), scattered over 65,536 buckets, so the lanes
//! of a warp almost always lock different buckets. A bucket keeps up to [`SLOTS`] distinct
//! keys with a count each; an insert finds its key and counts it, or appends it.

/// Buckets in the table: one lock each.
pub const BUCKETS: usize = 1 << BUCKET_BITS;
/// log2 of [`BUCKETS`].
pub const BUCKET_BITS: u32 = 16;
/// Distinct keys: `mix(n) % KEYS`.
pub const KEYS: u32 = 1 << 16;
/// Distinct keys a bucket holds. With these keys no bucket has more than 7 (a test below
/// checks it), and a `Mutex<Bucket>` is then 64 bytes: two to a 128-byte line.
pub const SLOTS: usize = 7;
/// Mixed into a key before it is hashed to its bucket (so the bucket is not a function of the
/// low bits `mix(n) % KEYS` already used).
const SALT: u32 = 0x9e37_79b9;

/// A 32-bit mixer (the "lowbias32" finalizer): a bijection, so `mix(n) % KEYS` is uniform.
#[inline(always)]
pub fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The key of insert number `n`.
#[inline(always)]
pub fn key(n: u32) -> u32 {
    mix(n) % KEYS
}

/// The bucket `key` goes to.
#[inline(always)]
pub fn bucket(key: u32) -> usize {
    (mix(key ^ SALT) >> (32 - BUCKET_BITS)) as usize
}

/// One bucket: `len` distinct keys so far, each with its count. All zeros is empty.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub len: u32,
    pub keys: [u32; SLOTS],
    pub counts: [u32; SLOTS],
}

impl Bucket {
    /// The critical section: count `key` if the bucket has it, else append it. A bucket that
    /// is full counts the key in `len` only (the check then fails: never out of bounds).
    #[inline(always)]
    pub fn insert(&mut self, key: u32) {
        let len = (self.len as usize).min(SLOTS);
        let mut j = 0;
        while j < len {
            if self.keys[j] == key {
                self.counts[j] += 1;
                return;
            }
            j += 1;
        }
        if len < SLOTS {
            self.keys[len] = key;
            self.counts[len] = 1;
        }
        self.len += 1;
    }

    /// The same keys with the same counts, in any order (the GPU's order of first inserts is
    /// a race; what each key counts is not).
    pub fn same_contents(&self, other: &Bucket) -> bool {
        let len = self.len as usize;
        // Every expected key found once with its count, in as many slots: the slots are
        // exactly the expected keys (no key appended twice, none lost, none miscounted).
        self.len == other.len
            && len <= SLOTS
            && (0..len).all(|j| {
                (0..len).any(|k| other.keys[k] == self.keys[j] && other.counts[k] == self.counts[j])
            })
    }
}

/// The table as inserting `inserts` keys one at a time leaves it.
#[cfg(not(target_arch = "nvptx64"))]
pub fn expected(inserts: u32) -> Vec<Bucket> {
    let mut t = vec![Bucket::default(); BUCKETS];
    for n in 0..inserts {
        let k = key(n);
        t[bucket(k)].insert(k);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows' insert counts (rust_cases::table_shape): the keys fit the buckets, there are
    /// duplicates, and every insert is counted.
    #[test]
    fn the_rows_keys_fit_with_duplicates() {
        for inserts in [132 * 32 * 128, 132 * 256 * 32] {
            let t = expected(inserts);
            assert!(t.iter().all(|b| b.len as usize <= SLOTS));
            let distinct: u32 = t.iter().map(|b| b.len).sum();
            let counted: u32 = t.iter().flat_map(|b| b.counts).sum();
            assert_eq!(counted, inserts);
            assert!(distinct < inserts / 2, "{distinct} distinct of {inserts}");
            assert!(t.iter().filter(|b| b.len > 1).count() > 1000);
        }
    }

    #[test]
    fn contents_compare_in_any_order() {
        let mut a = Bucket::default();
        let mut b = Bucket::default();
        for k in [5, 9, 5, 7] {
            a.insert(k);
        }
        for k in [9, 7, 5, 5] {
            b.insert(k);
        }
        assert_ne!(a, b);
        assert!(a.same_contents(&b) && b.same_contents(&a));
        // A key appended twice (two holders at once), a lost count: both differ.
        let mut dup = a;
        dup.keys[2] = 5;
        assert!(!a.same_contents(&dup));
        let mut lost = a;
        lost.counts[0] -= 1;
        assert!(!a.same_contents(&lost));
        let mut full = Bucket::default();
        for k in 0..SLOTS as u32 + 1 {
            full.insert(k);
        }
        assert_eq!(full.len as usize, SLOTS + 1);
        assert!(!full.same_contents(&full));
    }
}
