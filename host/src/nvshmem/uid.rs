//! NVSHMEM's unique ID and how the PEs share it: PE 0 asks the library for one
//! (`nvshmemx_get_uniqueid`) and hands the same 128 bytes to every other PE, through a
//! directory they all see or over TCP. NVSHMEM leaves the transport to the application (its
//! headers call the ID opaque); nothing here needs the library, so it is tested among threads
//! with a made-up ID.

use super::rank::Rank;
use crate::{Error, Result};
use std::fmt;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// How often a waiting PE looks again (the directory) or retries (TCP).
const POLL: Duration = Duration::from_millis(20);

/// NVSHMEM's unique ID (`nvshmemx_uniqueid_t`, 128 bytes): what every PE passes to
/// `nvshmemx_set_attr_uniqueid_args` so that they find each other. Written as 256 lowercase hex
/// digits ([`Display`](fmt::Display)) and read back from them ([`FromStr`]).
///
/// ```
/// use ptx_sync_host::nvshmem::UniqueId;
/// let id = UniqueId::from_bytes([7; 128]);
/// let text = id.to_string();
/// assert_eq!(text.len(), 256);
/// assert_eq!(text.parse::<UniqueId>()?, id);
/// # Ok::<(), ptx_sync_host::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId([u8; 128]);

impl UniqueId {
    /// The ID made of these bytes.
    pub fn from_bytes(bytes: [u8; 128]) -> UniqueId {
        UniqueId(bytes)
    }

    /// Its bytes.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.0
    }
}

impl fmt::Display for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.to_string();
        write!(f, "UniqueId({}...)", &hex[..16])
    }
}

fn parse_error(detail: String) -> Error {
    Error::NvshmemBootstrap {
        what: "reading a unique ID".into(),
        detail,
    }
}

impl FromStr for UniqueId {
    type Err = Error;

    /// 256 hex digits (either case; surrounding whitespace ignored); an error says how many
    /// there were or which character is not one.
    fn from_str(text: &str) -> Result<UniqueId> {
        let text = text.trim();
        let count = text.chars().count();
        if count != 256 {
            return Err(parse_error(format!(
                "a unique ID is 256 hex digits (128 bytes), this text has {count} characters"
            )));
        }
        let mut nibbles = [0u8; 256];
        for (i, c) in text.chars().enumerate() {
            nibbles[i] = c.to_digit(16).ok_or_else(|| {
                parse_error(format!("character {} ({c:?}) is not a hex digit", i + 1))
            })? as u8;
        }
        let mut bytes = [0u8; 128];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = nibbles[2 * i] << 4 | nibbles[2 * i + 1];
        }
        Ok(UniqueId(bytes))
    }
}

/// How the PEs share the unique ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rendezvous {
    /// A directory every PE sees (`PTX_SYNC_NVSHMEM_RENDEZVOUS`): PE 0 writes `uid` there
    /// (a temporary file, then a rename, so no PE reads half of it), the others look for it
    /// until the bootstrap timeout. Every PE also writes `pe-<n>.pid`, by which the others
    /// tell that it exited ([`Error::PeExited`]). Use a fresh directory for each run: PE 0
    /// refuses one that holds a `uid` already.
    Directory(PathBuf),
    /// `host:port` of PE 0 (`PTX_SYNC_NVSHMEM_ADDR`, or torchrun's `MASTER_ADDR` and
    /// `MASTER_PORT + 1`): PE 0 listens there and sends the ID to each of the others, which
    /// retry until the bootstrap timeout.
    Tcp(String),
    /// The ID itself, shared by the application (say, an MPI broadcast of
    /// [`unique_id`](super::unique_id)'s answer on PE 0).
    Id(UniqueId),
}

impl Rendezvous {
    /// The rendezvous the environment names ([`from_vars`](Self::from_vars) over
    /// `std::env::var`).
    pub fn from_env() -> Result<Option<Rendezvous>> {
        Rendezvous::from_vars(|name| std::env::var(name).ok())
    }

    /// `PTX_SYNC_NVSHMEM_RENDEZVOUS` (a directory), else `PTX_SYNC_NVSHMEM_ADDR` (`host:port`),
    /// else torchrun's `MASTER_ADDR` with `MASTER_PORT + 1` (torchrun's own store has
    /// `MASTER_PORT`); `Ok(None)` where none is set.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Rendezvous>> {
        if let Some(dir) = var("PTX_SYNC_NVSHMEM_RENDEZVOUS").filter(|d| !d.is_empty()) {
            return Ok(Some(Rendezvous::Directory(dir.into())));
        }
        if let Some(addr) = var("PTX_SYNC_NVSHMEM_ADDR").filter(|a| !a.is_empty()) {
            return Ok(Some(Rendezvous::Tcp(addr)));
        }
        if let (Some(host), Some(port)) = (var("MASTER_ADDR"), var("MASTER_PORT")) {
            let next = port
                .trim()
                .parse::<u16>()
                .ok()
                .and_then(|p| p.checked_add(1))
                .ok_or_else(|| Error::NvshmemBootstrap {
                    what: "reading the rendezvous from the environment".into(),
                    detail: format!(
                        "MASTER_PORT={port:?} is not a port below 65535 (the unique ID is \
                         served on MASTER_PORT + 1): set PTX_SYNC_NVSHMEM_ADDR=host:port"
                    ),
                })?;
            return Ok(Some(Rendezvous::Tcp(format!("{host}:{next}"))));
        }
        Ok(None)
    }
}

/// The ID every PE uses: PE 0's `make_id()`, handed to the others through `rendezvous`,
/// waiting at most `limit` ([`Error::NvshmemBootstrapTimeout`] past it).
pub(crate) fn exchange(
    rendezvous: &Rendezvous,
    rank: &Rank,
    limit: Duration,
    make_id: impl FnOnce() -> Result<UniqueId>,
) -> Result<UniqueId> {
    let deadline = Deadline::new(limit);
    match rendezvous {
        Rendezvous::Id(id) => Ok(*id),
        Rendezvous::Directory(dir) if rank.pe == 0 => {
            let id = make_id()?;
            publish_file(dir, rank, &id)?;
            Ok(id)
        }
        Rendezvous::Directory(dir) => read_file(dir, rank, &deadline),
        Rendezvous::Tcp(addr) if rank.pe == 0 => {
            let id = make_id()?;
            serve(addr, rank, &id, &deadline)?;
            Ok(id)
        }
        Rendezvous::Tcp(addr) => fetch(addr, rank, &deadline),
    }
}

/// A limit counted from its creation.
pub(crate) struct Deadline {
    start: Instant,
    limit: Duration,
}

impl Deadline {
    pub(crate) fn new(limit: Duration) -> Deadline {
        Deadline {
            start: Instant::now(),
            limit,
        }
    }

    pub(crate) fn passed(&self) -> bool {
        self.start.elapsed() >= self.limit
    }

    /// What is left, at least 1 ms (a zero timeout means "none" to sockets).
    pub(crate) fn left(&self) -> Duration {
        self.limit
            .saturating_sub(self.start.elapsed())
            .max(Duration::from_millis(1))
    }

    pub(crate) fn timeout(&self, rank: &Rank, what: String) -> Error {
        Error::NvshmemBootstrapTimeout {
            pe: rank.pe,
            n_pes: rank.n_pes,
            what,
            limit: self.limit,
        }
    }
}

fn io_error(what: String, e: std::io::Error) -> Error {
    Error::NvshmemBootstrap {
        what,
        detail: e.to_string(),
    }
}

/// The `uid` file's text: the number of PEs (checked by the readers), then the ID.
fn uid_text(rank: &Rank, id: &UniqueId) -> String {
    format!("n_pes {}\n{id}\n", rank.n_pes)
}

/// PE 0: writes `dir/uid` through a temporary file and a rename.
fn publish_file(dir: &Path, rank: &Rank, id: &UniqueId) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        io_error(
            format!("creating the rendezvous directory {}", dir.display()),
            e,
        )
    })?;
    let uid = dir.join("uid");
    if uid.exists() {
        return Err(Error::NvshmemBootstrap {
            what: format!("publishing the unique ID in {}", dir.display()),
            detail: format!(
                "{} exists already, left by an earlier run: the other PEs could read that one. \
                 Use a fresh directory for each run (or delete the file)",
                uid.display()
            ),
        });
    }
    let tmp = dir.join(format!("uid.tmp-{}", std::process::id()));
    std::fs::write(&tmp, uid_text(rank, id))
        .and_then(|()| std::fs::rename(&tmp, &uid))
        .map_err(|e| io_error(format!("writing {}", uid.display()), e))
}

/// Every other PE: reads `dir/uid` once PE 0 has written it.
fn read_file(dir: &Path, rank: &Rank, deadline: &Deadline) -> Result<UniqueId> {
    let uid = dir.join("uid");
    loop {
        match std::fs::read_to_string(&uid) {
            Ok(text) => {
                let mut lines = text.lines();
                let what = || format!("reading {}", uid.display());
                let n = lines
                    .next()
                    .and_then(|l| l.strip_prefix("n_pes "))
                    .and_then(|n| n.parse::<u32>().ok());
                if n != Some(rank.n_pes) {
                    return Err(Error::NvshmemBootstrap {
                        what: what(),
                        detail: format!(
                            "PE 0 wrote it for {}, but this PE is {} of {}: start every PE with \
                             the same number of PEs, and a fresh directory for each run",
                            n.map_or("another number of PEs".into(), |n| format!(
                                "{n} PE{}",
                                if n == 1 { "" } else { "s" }
                            )),
                            rank.pe,
                            rank.n_pes
                        ),
                    });
                }
                return lines.next().unwrap_or("").parse::<UniqueId>().map_err(|e| {
                    Error::NvshmemBootstrap {
                        what: what(),
                        detail: e.to_string(),
                    }
                });
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(format!("reading {}", uid.display()), e)),
        }
        if deadline.passed() {
            return Err(
                deadline.timeout(rank, format!("waiting for PE 0 to write {}", uid.display()))
            );
        }
        std::thread::sleep(POLL);
    }
}

/// The bytes that start every message: a stray connection (another service on the port) is
/// told apart from a PE.
const MAGIC: &[u8; 8] = b"ptxsync1";

/// What PE 0 answers: the ID follows.
const OK: u8 = 0;
/// What PE 0 answers to a PE that counts another number of PEs.
const WRONG_SIZE: u8 = 1;

fn resolve(addr: &str) -> Result<Vec<SocketAddr>> {
    addr.to_socket_addrs()
        .map(|a| a.collect::<Vec<_>>())
        .ok()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| Error::NvshmemBootstrap {
            what: format!("resolving the rendezvous address {addr:?}"),
            detail: "expected host:port of PE 0 (PTX_SYNC_NVSHMEM_ADDR, or MASTER_ADDR and \
                     MASTER_PORT)"
                .into(),
        })
}

/// PE 0: listens on `addr` (or on every interface at its port, where `addr` is not one of
/// this machine's) and sends the ID to each other PE once.
fn serve(addr: &str, rank: &Rank, id: &UniqueId, deadline: &Deadline) -> Result<()> {
    let addrs = resolve(addr)?;
    let listener = TcpListener::bind(&addrs[..])
        .or_else(|_| TcpListener::bind(("0.0.0.0", addrs[0].port())))
        .map_err(|e| io_error(format!("listening on {addr} for the other PEs"), e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| io_error(format!("listening on {addr}"), e))?;
    let mut served = vec![false; rank.n_pes as usize];
    served[0] = true;
    while served.iter().any(|s| !s) {
        match listener.accept() {
            Ok((stream, _)) => {
                if let Some(pe) = answer(stream, rank, id, deadline)? {
                    served[pe as usize] = true;
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if deadline.passed() {
                    let missing: Vec<String> = (0..rank.n_pes)
                        .filter(|&pe| !served[pe as usize])
                        .map(|pe| pe.to_string())
                        .collect();
                    return Err(deadline.timeout(
                        rank,
                        format!(
                            "serving the unique ID on {addr} (no word from PE {})",
                            missing.join(", PE ")
                        ),
                    ));
                }
                std::thread::sleep(POLL);
            }
            Err(e) => return Err(io_error(format!("accepting a PE on {addr}"), e)),
        }
    }
    Ok(())
}

/// Answers one connection: the PE it came from, `None` for one that is not a PE (ignored), an
/// error for a PE that counts another number of PEs.
fn answer(
    mut stream: TcpStream,
    rank: &Rank,
    id: &UniqueId,
    deadline: &Deadline,
) -> Result<Option<u32>> {
    let limit = deadline.left().min(Duration::from_secs(5));
    let hello = (|| {
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(limit))?;
        stream.set_write_timeout(Some(limit))?;
        let mut hello = [0u8; 16];
        stream.read_exact(&mut hello)?;
        Ok::<_, std::io::Error>(hello)
    })();
    let Ok(hello) = hello else {
        return Ok(None);
    };
    if &hello[..8] != MAGIC {
        return Ok(None);
    }
    let pe = u32::from_le_bytes(hello[8..12].try_into().unwrap_or_default());
    let n_pes = u32::from_le_bytes(hello[12..16].try_into().unwrap_or_default());
    let mut reply = Vec::with_capacity(9 + 128);
    reply.extend_from_slice(MAGIC);
    if n_pes != rank.n_pes || pe == 0 || pe >= rank.n_pes {
        reply.push(WRONG_SIZE);
        let _ = stream.write_all(&reply);
        return Err(Error::NvshmemBootstrap {
            what: "serving the unique ID".into(),
            detail: format!(
                "a PE that calls itself PE {pe} of {n_pes} asked, but this is PE 0 of {}: start \
                 every PE with the same number of PEs",
                rank.n_pes
            ),
        });
    }
    reply.push(OK);
    reply.extend_from_slice(id.as_bytes());
    // A PE that went away before reading asks again.
    Ok(stream.write_all(&reply).ok().map(|()| pe))
}

/// Every other PE: asks PE 0 at `addr` until it answers.
fn fetch(addr: &str, rank: &Rank, deadline: &Deadline) -> Result<UniqueId> {
    let addrs = resolve(addr)?;
    let mut last = String::from("no answer");
    loop {
        for a in &addrs {
            match ask(a, rank, deadline) {
                Ok(Some(id)) => return Ok(id),
                Ok(None) => {
                    return Err(Error::NvshmemBootstrap {
                        what: format!("fetching the unique ID from {addr}"),
                        detail: format!(
                            "PE 0 counts another number of PEs than this PE ({} of {}): start \
                             every PE with the same number of PEs",
                            rank.pe, rank.n_pes
                        ),
                    })
                }
                Err(e) if e.kind() == ErrorKind::InvalidData => {
                    return Err(io_error(format!("fetching the unique ID from {addr}"), e))
                }
                Err(e) => last = e.to_string(),
            }
        }
        if deadline.passed() {
            return Err(deadline.timeout(
                rank,
                format!("fetching the unique ID from PE 0 at {addr} (last: {last})"),
            ));
        }
        std::thread::sleep(POLL);
    }
}

/// One try: `Ok(Some(id))`, `Ok(None)` where PE 0 refuses this PE's size, `Err` to retry
/// (`InvalidData`: something else answers there, which retrying does not fix).
fn ask(addr: &SocketAddr, rank: &Rank, deadline: &Deadline) -> std::io::Result<Option<UniqueId>> {
    let limit = deadline.left().min(Duration::from_secs(5));
    let mut stream = TcpStream::connect_timeout(addr, limit)?;
    stream.set_read_timeout(Some(limit))?;
    stream.set_write_timeout(Some(limit))?;
    let mut hello = Vec::with_capacity(16);
    hello.extend_from_slice(MAGIC);
    hello.extend_from_slice(&rank.pe.to_le_bytes());
    hello.extend_from_slice(&rank.n_pes.to_le_bytes());
    stream.write_all(&hello)?;
    let mut head = [0u8; 9];
    stream.read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        return Err(std::io::Error::new(
            ErrorKind::InvalidData,
            "something other than a ptx-sync PE 0 answers there",
        ));
    }
    if head[8] != OK {
        return Ok(None);
    }
    let mut id = [0u8; 128];
    stream.read_exact(&mut id)?;
    Ok(Some(UniqueId(id)))
}

/// A PE's process as it recorded itself in the rendezvous directory (`pe-<n>.pid`): its id,
/// when it started (so a reused id is not taken for it), and the machine it runs on (a
/// process on another machine cannot be looked at from here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PidRecord {
    pub(crate) pid: u32,
    pub(crate) start: u64,
    pub(crate) host: String,
}

/// This process's record.
pub(crate) fn own_record() -> PidRecord {
    let pid = std::process::id();
    PidRecord {
        pid,
        start: start_time(pid).unwrap_or(0),
        host: hostname(),
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// The process's start time in clock ticks since boot (`/proc/<pid>/stat`, field 22), and
/// whether it is a zombie (exited, not yet reaped); `None` where there is no such process.
fn stat(pid: u32) -> Option<(u64, bool)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (the state); field 22 is at index 19.
    let zombie = matches!(fields.first(), Some(&"Z") | Some(&"X"));
    Some((fields.get(19)?.parse().ok()?, zombie))
}

fn start_time(pid: u32) -> Option<u64> {
    stat(pid).map(|(start, _)| start)
}

/// Writes `dir/pe-<pe>.pid`.
pub(crate) fn write_pid_file(dir: &Path, pe: u32) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        io_error(
            format!("creating the rendezvous directory {}", dir.display()),
            e,
        )
    })?;
    let r = own_record();
    let path = dir.join(format!("pe-{pe}.pid"));
    let tmp = dir.join(format!("pe-{pe}.pid.tmp-{}", r.pid));
    std::fs::write(&tmp, format!("{} {} {}\n", r.pid, r.start, r.host))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| io_error(format!("writing {}", path.display()), e))
}

fn read_pid_file(dir: &Path, pe: u32) -> Option<PidRecord> {
    let text = std::fs::read_to_string(dir.join(format!("pe-{pe}.pid"))).ok()?;
    let mut parts = text.split_whitespace();
    Some(PidRecord {
        pid: parts.next()?.parse().ok()?,
        start: parts.next()?.parse().ok()?,
        host: parts.next().unwrap_or("").to_string(),
    })
}

/// The other PEs' processes, through their pid files.
#[derive(Clone, Debug)]
pub(crate) struct PeerWatch {
    pub(crate) dir: PathBuf,
    pub(crate) me: u32,
    pub(crate) n_pes: u32,
}

impl PeerWatch {
    /// The first other PE whose process is known to have exited: its pid file names a process
    /// on this machine that no longer runs (or another that took its id). A PE without a pid
    /// file, or on another machine, is not known to have exited.
    pub(crate) fn gone(&self) -> Option<(u32, u32)> {
        let host = hostname();
        (0..self.n_pes).filter(|&pe| pe != self.me).find_map(|pe| {
            let r = read_pid_file(&self.dir, pe)?;
            if r.host != host {
                return None;
            }
            match stat(r.pid) {
                Some((start, false)) if r.start == 0 || start == r.start => None,
                _ => Some((pe, r.pid)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    fn fake_id(seed: u8) -> UniqueId {
        let mut b = [0u8; 128];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(31).wrapping_add(seed);
        }
        UniqueId(b)
    }

    fn rank(pe: u32, n_pes: u32) -> Rank {
        Rank {
            pe,
            n_pes,
            local_pe: pe,
            launcher: "test",
        }
    }

    fn fresh_dir(what: &str) -> PathBuf {
        static N: AtomicU32 = AtomicU32::new(0);
        let d = std::env::temp_dir().join(format!(
            "ptx-sync-uid-test-{}-{what}-{}",
            std::process::id(),
            N.fetch_add(1, Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn bootstrap_detail(r: Result<UniqueId>) -> String {
        match r {
            Err(Error::NvshmemBootstrap { detail, .. }) => detail,
            other => panic!("expected NvshmemBootstrap, got {other:?}"),
        }
    }

    /// Hex round-trips for 256 IDs; upper case and whitespace are read; 4 kinds of bad text
    /// are refused with what is wrong.
    #[test]
    fn hex_round_trip_and_bad_hex() {
        let mut round_trips = 0;
        for seed in 0..=255u8 {
            let id = fake_id(seed);
            let text = id.to_string();
            assert_eq!(text.len(), 256);
            assert!(text.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
            assert_eq!(text.parse::<UniqueId>().unwrap(), id);
            assert_eq!(
                format!("  {}\n", text.to_uppercase())
                    .parse::<UniqueId>()
                    .unwrap(),
                id
            );
            round_trips += 1;
        }
        assert_eq!(round_trips, 256);
        let good = fake_id(1).to_string();
        let cases = [
            (
                good[..254].to_string(),
                "a unique ID is 256 hex digits (128 bytes), this text has 254 characters",
            ),
            (
                String::new(),
                "a unique ID is 256 hex digits (128 bytes), this text has 0 characters",
            ),
            (
                format!("{}g{}", &good[..10], &good[11..]),
                "character 11 ('g') is not a hex digit",
            ),
            (
                format!("{}é{}", &good[..10], &good[11..]),
                "character 11 ('é') is not a hex digit",
            ),
        ];
        let mut refused = 0;
        for (text, want) in &cases {
            assert_eq!(bootstrap_detail(text.parse()), *want, "{text:?}");
            refused += 1;
        }
        assert_eq!(refused, 4);
        assert_eq!(
            format!("{:?}", UniqueId([0xab; 128])),
            "UniqueId(abababababababab...)"
        );
    }

    /// Rendezvous from the environment: 5 cases.
    #[test]
    fn rendezvous_from_variables() {
        let of = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Rendezvous::from_vars(|n| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()))
        };
        assert_eq!(of(&[]).unwrap(), None);
        assert_eq!(
            of(&[
                ("PTX_SYNC_NVSHMEM_RENDEZVOUS", "/tmp/r"),
                ("PTX_SYNC_NVSHMEM_ADDR", "h:1")
            ])
            .unwrap(),
            Some(Rendezvous::Directory("/tmp/r".into()))
        );
        assert_eq!(
            of(&[
                ("PTX_SYNC_NVSHMEM_ADDR", "h:1"),
                ("MASTER_ADDR", "m"),
                ("MASTER_PORT", "5")
            ])
            .unwrap(),
            Some(Rendezvous::Tcp("h:1".into()))
        );
        assert_eq!(
            of(&[("MASTER_ADDR", "node7"), ("MASTER_PORT", "29500")]).unwrap(),
            Some(Rendezvous::Tcp("node7:29501".into()))
        );
        match of(&[("MASTER_ADDR", "node7"), ("MASTER_PORT", "65535")]) {
            Err(Error::NvshmemBootstrap { detail, .. }) => assert_eq!(
                detail,
                "MASTER_PORT=\"65535\" is not a port below 65535 (the unique ID is served on \
                 MASTER_PORT + 1): set PTX_SYNC_NVSHMEM_ADDR=host:port"
            ),
            other => panic!("{other:?}"),
        }
    }

    /// Runs `n` PEs as threads over `rendezvous`; PE 0 makes `id`. Returns what each got.
    fn run_threads(rendezvous: Rendezvous, n: u32, id: UniqueId) -> Vec<Result<UniqueId>> {
        let handles: Vec<_> = (0..n)
            .map(|pe| {
                let r = rendezvous.clone();
                std::thread::spawn(move || {
                    // PE 0 comes last, so that the others wait for it.
                    if pe == 0 {
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    exchange(&r, &rank(pe, n), Duration::from_secs(20), || Ok(id))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    /// Four PEs share an ID through a directory: all four get it; a second run in the same
    /// directory is refused by PE 0.
    #[test]
    fn file_rendezvous_among_threads() {
        let dir = fresh_dir("file");
        let id = fake_id(9);
        let got = run_threads(Rendezvous::Directory(dir.clone()), 4, id);
        assert_eq!(
            got.iter()
                .filter(|g| matches!(g, Ok(x) if *x == id))
                .count(),
            4
        );
        let again = exchange(
            &Rendezvous::Directory(dir.clone()),
            &rank(0, 4),
            Duration::from_secs(1),
            || Ok(id),
        );
        assert!(bootstrap_detail(again).contains("exists already, left by an earlier run"));
        // A PE counting another number of PEs is told so.
        let wrong = exchange(
            &Rendezvous::Directory(dir.clone()),
            &rank(1, 3),
            Duration::from_secs(1),
            || unreachable!(),
        );
        assert_eq!(
            bootstrap_detail(wrong),
            "PE 0 wrote it for 4 PEs, but this PE is 1 of 3: start every PE with the same number \
             of PEs, and a fresh directory for each run"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Without PE 0 the others give up at the limit, saying what they waited for.
    #[test]
    fn file_rendezvous_times_out() {
        let dir = fresh_dir("timeout");
        let start = Instant::now();
        let e = exchange(
            &Rendezvous::Directory(dir.clone()),
            &rank(1, 2),
            Duration::from_millis(300),
            || unreachable!(),
        )
        .unwrap_err();
        assert!(start.elapsed() >= Duration::from_millis(300));
        assert!(start.elapsed() < Duration::from_secs(5));
        match e {
            Error::NvshmemBootstrapTimeout {
                pe: 1,
                n_pes: 2,
                what,
                limit,
            } => {
                assert_eq!(
                    what,
                    format!("waiting for PE 0 to write {}", dir.join("uid").display())
                );
                assert_eq!(limit, Duration::from_millis(300));
            }
            other => panic!("{other:?}"),
        }
    }

    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    /// Four PEs share an ID over TCP (PE 0 last, so the others retry): all four get it.
    #[test]
    fn tcp_rendezvous_among_threads() {
        let addr = format!("127.0.0.1:{}", free_port());
        let id = fake_id(200);
        let got = run_threads(Rendezvous::Tcp(addr), 4, id);
        assert_eq!(
            got.iter()
                .filter(|g| matches!(g, Ok(x) if *x == id))
                .count(),
            4,
            "{got:?}"
        );
    }

    /// PE 0 alone times out naming the PEs that never asked; a PE that counts another size
    /// is refused on both sides; a stray connection is ignored.
    #[test]
    fn tcp_rendezvous_failures() {
        let addr = format!("127.0.0.1:{}", free_port());
        let id = fake_id(3);
        let server = {
            let addr = addr.clone();
            std::thread::spawn(move || {
                exchange(
                    &Rendezvous::Tcp(addr),
                    &rank(0, 3),
                    Duration::from_millis(800),
                    || Ok(id),
                )
            })
        };
        // A stray client that says nothing useful, then one PE of 3 that does.
        std::thread::sleep(Duration::from_millis(100));
        let mut stray = TcpStream::connect(&addr).unwrap();
        stray.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        drop(stray);
        let one = exchange(
            &Rendezvous::Tcp(addr.clone()),
            &rank(1, 3),
            Duration::from_secs(5),
            || unreachable!(),
        );
        assert_eq!(one.unwrap(), id);
        match server.join().unwrap() {
            Err(Error::NvshmemBootstrapTimeout {
                pe: 0,
                n_pes: 3,
                what,
                ..
            }) => assert_eq!(
                what,
                format!("serving the unique ID on {addr} (no word from PE 2)")
            ),
            other => panic!("{other:?}"),
        }

        let addr = format!("127.0.0.1:{}", free_port());
        let server = {
            let addr = addr.clone();
            std::thread::spawn(move || {
                exchange(
                    &Rendezvous::Tcp(addr),
                    &rank(0, 2),
                    Duration::from_secs(5),
                    || Ok(id),
                )
            })
        };
        let client = exchange(
            &Rendezvous::Tcp(addr),
            &rank(1, 3),
            Duration::from_secs(5),
            || unreachable!(),
        );
        assert!(bootstrap_detail(client)
            .starts_with("PE 0 counts another number of PEs than this PE (1 of 3)"));
        assert_eq!(
            bootstrap_detail(server.join().unwrap()),
            "a PE that calls itself PE 1 of 3 asked, but this is PE 0 of 2: start every PE with \
             the same number of PEs"
        );
    }

    /// A PE with no PE 0 to ask gives up at the limit.
    #[test]
    fn tcp_client_times_out() {
        let addr = format!("127.0.0.1:{}", free_port());
        match exchange(
            &Rendezvous::Tcp(addr.clone()),
            &rank(2, 3),
            Duration::from_millis(300),
            || unreachable!(),
        ) {
            Err(Error::NvshmemBootstrapTimeout { pe: 2, what, .. }) => assert!(
                what.starts_with(&format!(
                    "fetching the unique ID from PE 0 at {addr} (last: "
                )),
                "{what}"
            ),
            other => panic!("{other:?}"),
        }
    }

    /// Pid files: a live process is not gone, an exited one is (named by PE and pid), one on
    /// another machine is not looked at.
    #[test]
    fn exited_peers_are_found_through_pid_files() {
        let dir = fresh_dir("pids");
        write_pid_file(&dir, 0).unwrap();
        let watch = PeerWatch {
            dir: dir.clone(),
            me: 1,
            n_pes: 3,
        };
        assert_eq!(
            watch.gone(),
            None,
            "PE 0 (this process) runs; PE 2 wrote nothing"
        );
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        std::fs::write(dir.join("pe-2.pid"), format!("{pid} 1 {}\n", hostname())).unwrap();
        assert_eq!(watch.gone(), Some((2, pid)));
        std::fs::write(
            dir.join("pe-2.pid"),
            format!("{pid} 1 some-other-machine\n"),
        )
        .unwrap();
        assert_eq!(watch.gone(), None);
        // This process under another start time: its id was reused.
        let me = own_record();
        std::fs::write(
            dir.join("pe-2.pid"),
            format!("{} {} {}\n", me.pid, me.start + 1, me.host),
        )
        .unwrap();
        assert_eq!(watch.gone(), Some((2, me.pid)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
