//! Which PE this process is: read from the variables a launcher sets.

use crate::{Error, Result};
use std::fmt;

/// This process's place among the PEs, as a launcher gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rank {
    /// This process's PE: `0..n_pes`.
    pub pe: u32,
    /// How many PEs (processes) there are.
    pub n_pes: u32,
    /// This process's index among the PEs of its node: the GPU it opens. Where the launcher
    /// gives no local rank, `pe` (right on one node).
    pub local_pe: u32,
    /// The launcher whose variables said so: "ptx-sync", "torchrun", "Open MPI", "PMI",
    /// "PMIx" or "Slurm".
    pub launcher: &'static str,
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PE {} of {} (local {}, from {})",
            self.pe, self.n_pes, self.local_pe, self.launcher
        )
    }
}

/// One launcher's variables: the rank, where the size may be, where the local rank may be.
struct Scheme {
    launcher: &'static str,
    rank: &'static str,
    size: &'static [&'static str],
    local: &'static [&'static str],
}

/// The launchers, in the order they are asked: the first whose rank variable is set decides.
/// Ours first, so that [`LocalLauncher`](super::LocalLauncher) works inside a job of another
/// launcher.
const SCHEMES: &[Scheme] = &[
    Scheme {
        launcher: "ptx-sync",
        rank: "PTX_SYNC_PE",
        size: &["PTX_SYNC_N_PES"],
        local: &["PTX_SYNC_LOCAL_PE"],
    },
    Scheme {
        launcher: "torchrun",
        rank: "RANK",
        size: &["WORLD_SIZE"],
        local: &["LOCAL_RANK"],
    },
    Scheme {
        launcher: "Open MPI",
        rank: "OMPI_COMM_WORLD_RANK",
        size: &["OMPI_COMM_WORLD_SIZE"],
        local: &["OMPI_COMM_WORLD_LOCAL_RANK"],
    },
    // MPICH's Hydra (and Intel MPI) set PMI_RANK and PMI_SIZE, and MPI_LOCALRANKID.
    Scheme {
        launcher: "PMI",
        rank: "PMI_RANK",
        size: &["PMI_SIZE"],
        local: &["MPI_LOCALRANKID"],
    },
    // PMIx servers export the rank but not the size: it comes from the launcher around them.
    Scheme {
        launcher: "PMIx",
        rank: "PMIX_RANK",
        size: &["PTX_SYNC_N_PES", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"],
        local: &[
            "PTX_SYNC_LOCAL_PE",
            "SLURM_LOCALID",
            "OMPI_COMM_WORLD_LOCAL_RANK",
        ],
    },
    // Under srun. (A batch script outside srun runs as SLURM_PROCID 0 of SLURM_NTASKS: start
    // the PEs with srun.)
    Scheme {
        launcher: "Slurm",
        rank: "SLURM_PROCID",
        size: &["SLURM_NTASKS"],
        local: &["SLURM_LOCALID"],
    },
];

/// [`Error::NvshmemBootstrap`] about the environment.
fn env_error(detail: String) -> Error {
    Error::NvshmemBootstrap {
        what: "reading the rank from the environment".into(),
        detail,
    }
}

/// `name`'s value as a number, or an error naming the variable and its value.
fn number(name: &str, value: &str) -> Result<u32> {
    value.trim().parse::<u32>().map_err(|_| {
        env_error(format!(
            "{name}={value:?} is not a number (a whole number from 0 to {} was expected)",
            u32::MAX
        ))
    })
}

impl Rank {
    /// The rank the environment of this process names ([`from_vars`](Self::from_vars) over
    /// `std::env::var`).
    pub fn from_env() -> Result<Option<Rank>> {
        Rank::from_vars(|name| std::env::var(name).ok())
    }

    /// The rank that `var` (a variable's value by name) names: `Ok(None)` where no launcher's
    /// rank variable is set; [`Error::NvshmemBootstrap`] naming the variable where a value is
    /// not a number, the size is missing or zero, or the rank or local rank is not below the
    /// size. The launchers, in the order asked (the first whose rank variable is set decides):
    ///
    /// | launcher | rank | size | local rank |
    /// |---|---|---|---|
    /// | ours ([`LocalLauncher`](super::LocalLauncher)) | `PTX_SYNC_PE` | `PTX_SYNC_N_PES` | `PTX_SYNC_LOCAL_PE` |
    /// | torchrun | `RANK` | `WORLD_SIZE` | `LOCAL_RANK` |
    /// | Open MPI | `OMPI_COMM_WORLD_RANK` | `OMPI_COMM_WORLD_SIZE` | `OMPI_COMM_WORLD_LOCAL_RANK` |
    /// | PMI (MPICH Hydra) | `PMI_RANK` | `PMI_SIZE` | `MPI_LOCALRANKID` |
    /// | PMIx | `PMIX_RANK` | `PTX_SYNC_N_PES`, `SLURM_NTASKS` or `OMPI_COMM_WORLD_SIZE` | `PTX_SYNC_LOCAL_PE`, `SLURM_LOCALID` or `OMPI_COMM_WORLD_LOCAL_RANK` |
    /// | Slurm (srun) | `SLURM_PROCID` | `SLURM_NTASKS` | `SLURM_LOCALID` |
    ///
    /// ```
    /// use ptx_sync_host::nvshmem::Rank;
    /// let env = |name: &str| match name {
    ///     "RANK" => Some("1".to_string()),
    ///     "WORLD_SIZE" => Some("2".to_string()),
    ///     "LOCAL_RANK" => Some("1".to_string()),
    ///     _ => None,
    /// };
    /// let rank = Rank::from_vars(env)?.expect("torchrun's variables");
    /// assert_eq!((rank.pe, rank.n_pes, rank.local_pe, rank.launcher), (1, 2, 1, "torchrun"));
    /// # Ok::<(), ptx_sync_host::Error>(())
    /// ```
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Rank>> {
        let Some((scheme, rank_value)) = SCHEMES
            .iter()
            .find_map(|s| var(s.rank).map(|value| (s, value)))
        else {
            return Ok(None);
        };
        let pe = number(scheme.rank, &rank_value)?;
        let Some((size_name, size_value)) = scheme
            .size
            .iter()
            .find_map(|&name| var(name).map(|value| (name, value)))
        else {
            return Err(env_error(format!(
                "{}={rank_value} is set ({}), but not the number of PEs: set {}",
                scheme.rank,
                scheme.launcher,
                scheme.size.join(" or ")
            )));
        };
        let n_pes = number(size_name, &size_value)?;
        if n_pes == 0 {
            return Err(env_error(format!(
                "{size_name}=0: there must be at least one PE"
            )));
        }
        if pe >= n_pes {
            return Err(env_error(format!(
                "{}={pe} is not below {size_name}={n_pes} (PEs count from 0)",
                scheme.rank
            )));
        }
        let local_pe = match scheme
            .local
            .iter()
            .find_map(|&name| var(name).map(|value| (name, value)))
        {
            Some((name, value)) => {
                let local = number(name, &value)?;
                if local >= n_pes {
                    return Err(env_error(format!(
                        "{name}={local} is not below {size_name}={n_pes} (a local rank counts \
                         the PEs of one node, from 0)"
                    )));
                }
                local
            }
            None => pe,
        };
        Ok(Some(Rank {
            pe,
            n_pes,
            local_pe,
            launcher: scheme.launcher,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn rank(vars: &[(&str, &str)]) -> Result<Option<Rank>> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Rank::from_vars(|name| map.get(name).cloned())
    }

    fn detail(vars: &[(&str, &str)]) -> String {
        match rank(vars) {
            Err(Error::NvshmemBootstrap { what, detail }) => {
                assert_eq!(what, "reading the rank from the environment");
                detail
            }
            other => panic!("{vars:?}: expected an error, got {other:?}"),
        }
    }

    /// Each launcher's variables, and the order between them: 9 cases.
    #[test]
    fn each_launcher_is_read() {
        let cases: &[(&[(&str, &str)], Rank)] = &[
            (
                &[
                    ("PTX_SYNC_PE", "1"),
                    ("PTX_SYNC_N_PES", "2"),
                    ("PTX_SYNC_LOCAL_PE", "1"),
                ],
                Rank {
                    pe: 1,
                    n_pes: 2,
                    local_pe: 1,
                    launcher: "ptx-sync",
                },
            ),
            (
                &[("RANK", "3"), ("WORLD_SIZE", "8"), ("LOCAL_RANK", "3")],
                Rank {
                    pe: 3,
                    n_pes: 8,
                    local_pe: 3,
                    launcher: "torchrun",
                },
            ),
            (
                &[
                    ("OMPI_COMM_WORLD_RANK", "5"),
                    ("OMPI_COMM_WORLD_SIZE", "16"),
                    ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
                ],
                Rank {
                    pe: 5,
                    n_pes: 16,
                    local_pe: 1,
                    launcher: "Open MPI",
                },
            ),
            (
                &[
                    ("PMI_RANK", "2"),
                    ("PMI_SIZE", "4"),
                    ("MPI_LOCALRANKID", "0"),
                ],
                Rank {
                    pe: 2,
                    n_pes: 4,
                    local_pe: 0,
                    launcher: "PMI",
                },
            ),
            // PMI without a local rank: the PE itself.
            (
                &[("PMI_RANK", "2"), ("PMI_SIZE", "4")],
                Rank {
                    pe: 2,
                    n_pes: 4,
                    local_pe: 2,
                    launcher: "PMI",
                },
            ),
            (
                &[
                    ("PMIX_RANK", "1"),
                    ("SLURM_NTASKS", "2"),
                    ("SLURM_LOCALID", "1"),
                ],
                Rank {
                    pe: 1,
                    n_pes: 2,
                    local_pe: 1,
                    launcher: "PMIx",
                },
            ),
            (
                &[
                    ("SLURM_PROCID", "7"),
                    ("SLURM_NTASKS", "8"),
                    ("SLURM_LOCALID", "3"),
                ],
                Rank {
                    pe: 7,
                    n_pes: 8,
                    local_pe: 3,
                    launcher: "Slurm",
                },
            ),
            // Ours wins over the launcher around it; torchrun over Slurm.
            (
                &[
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "1"),
                    ("PTX_SYNC_PE", "0"),
                    ("PTX_SYNC_N_PES", "2"),
                ],
                Rank {
                    pe: 0,
                    n_pes: 2,
                    local_pe: 0,
                    launcher: "ptx-sync",
                },
            ),
            (
                &[
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "4"),
                    ("RANK", "1"),
                    ("WORLD_SIZE", "2"),
                    ("LOCAL_RANK", " 1 "),
                ],
                Rank {
                    pe: 1,
                    n_pes: 2,
                    local_pe: 1,
                    launcher: "torchrun",
                },
            ),
        ];
        let mut checked = 0;
        for (vars, want) in cases {
            assert_eq!(rank(vars).unwrap(), Some(*want), "{vars:?}");
            checked += 1;
        }
        assert_eq!(checked, 9);
        // No launcher at all (a size alone names no rank).
        assert_eq!(rank(&[]).unwrap(), None);
        assert_eq!(
            rank(&[("WORLD_SIZE", "2"), ("SLURM_NTASKS", "4")]).unwrap(),
            None
        );
    }

    /// Inconsistent or unreadable values are errors naming the variable: 8 cases.
    #[test]
    fn bad_values_name_the_variable() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (
                &[("RANK", "2"), ("WORLD_SIZE", "2")],
                "RANK=2 is not below WORLD_SIZE=2 (PEs count from 0)",
            ),
            (
                &[("RANK", "0")],
                "RANK=0 is set (torchrun), but not the number of PEs: set WORLD_SIZE",
            ),
            (
                &[("PMIX_RANK", "0")],
                "PMIX_RANK=0 is set (PMIx), but not the number of PEs: set PTX_SYNC_N_PES or \
                 SLURM_NTASKS or OMPI_COMM_WORLD_SIZE",
            ),
            (
                &[("PTX_SYNC_PE", "one"), ("PTX_SYNC_N_PES", "2")],
                "PTX_SYNC_PE=\"one\" is not a number (a whole number from 0 to 4294967295 was expected)",
            ),
            (
                &[("OMPI_COMM_WORLD_RANK", "0"), ("OMPI_COMM_WORLD_SIZE", "-2")],
                "OMPI_COMM_WORLD_SIZE=\"-2\" is not a number (a whole number from 0 to 4294967295 was expected)",
            ),
            (
                &[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "0")],
                "SLURM_NTASKS=0: there must be at least one PE",
            ),
            (
                &[("PMI_RANK", "1"), ("PMI_SIZE", "2"), ("MPI_LOCALRANKID", "2")],
                "MPI_LOCALRANKID=2 is not below PMI_SIZE=2 (a local rank counts the PEs of one node, from 0)",
            ),
            (
                &[("PTX_SYNC_PE", "0"), ("PTX_SYNC_N_PES", "2"), ("PTX_SYNC_LOCAL_PE", "")],
                "PTX_SYNC_LOCAL_PE=\"\" is not a number (a whole number from 0 to 4294967295 was expected)",
            ),
        ];
        let mut checked = 0;
        for (vars, want) in cases {
            assert_eq!(detail(vars), *want, "{vars:?}");
            checked += 1;
        }
        assert_eq!(checked, 8);
        assert_eq!(
            Error::NvshmemBootstrap {
                what: "reading the rank from the environment".into(),
                detail: cases[0].1.into()
            }
            .to_string(),
            "NVSHMEM bootstrap, reading the rank from the environment: RANK=2 is not below \
             WORLD_SIZE=2 (PEs count from 0)"
        );
    }
}
