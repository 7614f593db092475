//! Volatile and MMIO words on the GPU: `ld/st.volatile.bN`, or `ld/st.mmio.relaxed.sys.bN`
//! (sm_70+, PTX ISA 8.2), which the hardware performs exactly once.

macro_rules! word {
    ($read:ident, $write:ident, $t:ty, $reg:ident, $b:literal) => {
        /// # Safety
        /// `p` is valid for a read of an aligned word.
        #[inline(always)]
        pub(crate) unsafe fn $read(p: *const $t, mmio: bool) -> $t {
            let r: $t;
            // SAFETY: the caller's contract.
            unsafe {
                if mmio {
                    core::arch::asm!(concat!("ld.mmio.relaxed.sys.", $b, " {r}, [{p}];"),
                        p = in(reg64) p, r = out($reg) r, options(nostack));
                } else {
                    core::arch::asm!(concat!("ld.volatile.", $b, " {r}, [{p}];"),
                        p = in(reg64) p, r = out($reg) r, options(nostack));
                }
            }
            r
        }

        /// # Safety
        /// `p` is valid for a write of an aligned word.
        #[inline(always)]
        pub(crate) unsafe fn $write(p: *mut $t, v: $t, mmio: bool) {
            // SAFETY: the caller's contract.
            unsafe {
                if mmio {
                    core::arch::asm!(concat!("st.mmio.relaxed.sys.", $b, " [{p}], {v};"),
                        p = in(reg64) p, v = in($reg) v, options(nostack));
                } else {
                    core::arch::asm!(concat!("st.volatile.", $b, " [{p}], {v};"),
                        p = in(reg64) p, v = in($reg) v, options(nostack));
                }
            }
        }
    };
}
word!(read32, write32, u32, reg32, "b32");
word!(read64, write64, u64, reg64, "b64");
