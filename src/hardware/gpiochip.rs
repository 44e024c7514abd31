//! The Linux GPIO character device (`/dev/gpiochip*`, uapi v2) spoken
//! directly: a request for some lines of a chip, their edge events with
//! the kernel's timestamps, their values. Three ioctls and a `read`, where
//! a GPIO crate would bring memory-mapped registers, a board model table
//! and a regex engine into the daemon's resident code (docs/src/figures.md).
//!
//! The structures are the kernel's (`include/uapi/linux/gpio.h`), laid out
//! as C does; their sizes are part of the ioctl numbers, which the tests
//! check against the header's.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rustix::ioctl::{Getter, Opcode, Updater, ioctl, opcode};

/// The labels of a Raspberry Pi's own GPIO chip, the one with the pin
/// header: BCM2835/6/7, BCM2711 (Pi 4) and the RP1 of the Pi 5 (whose
/// chip number moved between kernels, so the label decides, not the number).
pub const PI_CHIP_LABELS: [&str; 3] = ["pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"];

/// The name the lines are held under, which `gpioinfo` shows.
const CONSUMER: &[u8] = b"tocada";

/// `GPIO_MAX_NAME_SIZE`.
const NAME_SIZE: usize = 32;
/// `GPIO_V2_LINES_MAX`: the most lines one request holds.
pub const LINES_MAX: usize = 64;
/// `GPIO_V2_LINE_NUM_ATTRS_MAX`.
const ATTRS_MAX: usize = 10;

/// `enum gpio_v2_line_flag`, the ones used here.
mod flag {
    pub const INPUT: u64 = 1 << 2;
    pub const OUTPUT: u64 = 1 << 3;
    pub const EDGE_FALLING: u64 = 1 << 5;
    pub const BIAS_PULL_UP: u64 = 1 << 8;
}

/// `enum gpio_v2_line_attr_id`.
const ATTR_OUTPUT_VALUES: u32 = 2;
const ATTR_DEBOUNCE: u32 = 3;

/// `enum gpio_v2_line_event_id`.
const EVENT_FALLING_EDGE: u32 = 2;

/// `struct gpiochip_info`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct ChipInfo {
    name: [u8; NAME_SIZE],
    label: [u8; NAME_SIZE],
    lines: u32,
}

/// `struct gpio_v2_line_attribute`: its union is a `u64` (flags, output
/// values) or a `u32` (the debounce period) at the same address, so each
/// is written through its own field, whatever the byte order.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct LineAttribute {
    id: u32,
    padding: u32,
    value: AttributeValue,
}

/// The union of `struct gpio_v2_line_attribute`.
#[repr(C)]
#[derive(Clone, Copy)]
union AttributeValue {
    values: u64,
    debounce_period_us: u32,
}

impl Default for AttributeValue {
    fn default() -> AttributeValue {
        AttributeValue { values: 0 }
    }
}

/// `struct gpio_v2_line_config_attribute`: an attribute and the lines (by
/// their index in the request) it applies to.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct ConfigAttribute {
    attr: LineAttribute,
    mask: u64,
}

/// `struct gpio_v2_line_config`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct LineConfig {
    flags: u64,
    num_attrs: u32,
    padding: [u32; 5],
    attrs: [ConfigAttribute; ATTRS_MAX],
}

/// `struct gpio_v2_line_request`: which lines, how, and (filled by the
/// kernel) the file descriptor that holds them.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct LineRequest {
    offsets: [u32; LINES_MAX],
    consumer: [u8; NAME_SIZE],
    config: LineConfig,
    num_lines: u32,
    event_buffer_size: u32,
    padding: [u32; 5],
    fd: i32,
}

/// `struct gpio_v2_line_values`: a bit per line of the request, `mask`
/// saying which bits count.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct LineValues {
    bits: u64,
    mask: u64,
}

/// The size of `struct gpio_v2_line_event`, as `read` returns them.
pub const EVENT_SIZE: usize = 48;

/// `GPIO_GET_CHIPINFO_IOCTL`.
pub(crate) const GET_CHIPINFO: Opcode = opcode::read::<ChipInfo>(0xB4, 0x01);
/// `GPIO_V2_GET_LINE_IOCTL`.
pub(crate) const GET_LINE: Opcode = opcode::read_write::<LineRequest>(0xB4, 0x07);
/// `GPIO_V2_LINE_GET_VALUES_IOCTL`.
pub(crate) const GET_VALUES: Opcode = opcode::read_write::<LineValues>(0xB4, 0x0E);
/// `GPIO_V2_LINE_SET_VALUES_IOCTL`.
pub(crate) const SET_VALUES: Opcode = opcode::read_write::<LineValues>(0xB4, 0x0F);

/// What a set of lines is requested as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineMode {
    /// Inputs pulled up, whose falling edges are reported (a button or an
    /// open-drain line pulls them low), with the kernel's debounce when
    /// one is given.
    FallingEdges {
        /// Edges closer together than this on one line are contact bounce.
        debounce: Option<Duration>,
    },
    /// Outputs, low from the start.
    OutputLow,
}

impl LineRequest {
    /// The request for `offsets` (at most [`LINES_MAX`]) in `mode`.
    pub(crate) fn new(offsets: &[u32], mode: LineMode) -> LineRequest {
        let mut request = LineRequest {
            offsets: [0; LINES_MAX],
            consumer: [0; NAME_SIZE],
            config: LineConfig::default(),
            num_lines: offsets.len().min(LINES_MAX) as u32,
            event_buffer_size: 0,
            padding: [0; 5],
            fd: -1,
        };
        request.offsets[..request.num_lines as usize]
            .copy_from_slice(&offsets[..request.num_lines as usize]);
        request.consumer[..CONSUMER.len()].copy_from_slice(CONSUMER);
        // Every line of the request: the attributes below apply to all.
        let all = match request.num_lines {
            64 => u64::MAX,
            n => (1u64 << n) - 1,
        };
        match mode {
            LineMode::FallingEdges { debounce } => {
                request.config.flags = flag::INPUT | flag::EDGE_FALLING | flag::BIAS_PULL_UP;
                if let Some(debounce) = debounce {
                    let us = u32::try_from(debounce.as_micros()).unwrap_or(u32::MAX);
                    request.config.attrs[0] = ConfigAttribute {
                        attr: LineAttribute {
                            id: ATTR_DEBOUNCE,
                            padding: 0,
                            value: AttributeValue {
                                debounce_period_us: us,
                            },
                        },
                        mask: all,
                    };
                    request.config.num_attrs = 1;
                }
            }
            LineMode::OutputLow => {
                request.config.flags = flag::OUTPUT;
                request.config.attrs[0] = ConfigAttribute {
                    attr: LineAttribute {
                        id: ATTR_OUTPUT_VALUES,
                        padding: 0,
                        value: AttributeValue { values: 0 },
                    },
                    mask: all,
                };
                request.config.num_attrs = 1;
            }
        }
        request
    }
}

/// An edge on a line, as the kernel reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The line's offset on its chip (the BCM number on a Pi).
    pub offset: u32,
    /// When it happened, by CLOCK_MONOTONIC (the kernel's default for
    /// edge events).
    pub at: Duration,
    /// A falling edge (else rising).
    pub falling: bool,
}

impl Edge {
    /// Reads one `struct gpio_v2_line_event` (native byte order).
    pub fn parse(record: &[u8; EVENT_SIZE]) -> Edge {
        let u32_at = |at: usize| {
            u32::from_ne_bytes([record[at], record[at + 1], record[at + 2], record[at + 3]])
        };
        let mut ns = [0u8; 8];
        ns.copy_from_slice(&record[0..8]);
        Edge {
            at: Duration::from_nanos(u64::from_ne_bytes(ns)),
            falling: u32_at(8) == EVENT_FALLING_EDGE,
            offset: u32_at(12),
        }
    }
}

/// Why the GPIO chip or a line could not be used.
#[derive(Debug)]
pub enum GpioError {
    /// No `/dev/gpiochip*` has one of [`PI_CHIP_LABELS`]: not a Raspberry
    /// Pi, or its GPIO driver is not loaded.
    NoChip {
        /// The chips looked at, with their labels.
        seen: Vec<(PathBuf, String)>,
    },
    /// The system refused an operation.
    Io {
        /// What was being done, with the device.
        what: String,
        /// The system's answer.
        source: io::Error,
    },
}

impl fmt::Display for GpioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpioError::NoChip { seen } if seen.is_empty() => {
                write!(f, "no GPIO chip: /dev/gpiochip* does not exist")
            }
            GpioError::NoChip { seen } => {
                write!(
                    f,
                    "no Raspberry Pi GPIO chip ({}) among",
                    PI_CHIP_LABELS.join(", ")
                )?;
                for (i, (path, label)) in seen.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{} ({label})", path.display())?;
                }
                Ok(())
            }
            GpioError::Io { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl std::error::Error for GpioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GpioError::Io { source, .. } => Some(source),
            GpioError::NoChip { .. } => None,
        }
    }
}

fn io_error(what: impl FnOnce() -> String) -> impl FnOnce(io::Error) -> GpioError {
    move |source| GpioError::Io {
        what: what(),
        source,
    }
}

/// The text of a fixed-size, NUL-padded name from the kernel.
fn c_name(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Whether a chip's label names a Pi's own GPIO chip.
pub fn is_pi_chip(label: &str) -> bool {
    PI_CHIP_LABELS.contains(&label)
}

/// An open GPIO chip.
pub struct Chip {
    file: File,
    path: PathBuf,
}

impl Chip {
    /// Opens the chip at `path` (`/dev/gpiochipN`).
    pub fn open(path: &Path) -> Result<Chip, GpioError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io_error(|| format!("opening {}", path.display())))?;
        Ok(Chip {
            file,
            path: path.to_owned(),
        })
    }

    /// The Raspberry Pi's own chip, found by its label among
    /// `/dev/gpiochip*` in the order of their numbers.
    pub fn raspberry_pi() -> Result<Chip, GpioError> {
        let mut paths: Vec<(u32, PathBuf)> = match std::fs::read_dir("/dev") {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter_map(|entry| {
                    let name = entry.file_name();
                    let number = name.to_str()?.strip_prefix("gpiochip")?.parse().ok()?;
                    Some((number, entry.path()))
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        paths.sort();
        let mut seen = Vec::new();
        for (_, path) in paths {
            let chip = Chip::open(&path)?;
            let label = chip.label()?;
            if is_pi_chip(&label) {
                return Ok(chip);
            }
            seen.push((path, label));
        }
        Err(GpioError::NoChip { seen })
    }

    /// The chip's label (its driver's name for it).
    pub fn label(&self) -> Result<String, GpioError> {
        // SAFETY: GPIO_GET_CHIPINFO_IOCTL fills a `struct gpiochip_info`,
        // which `ChipInfo` is.
        let info: ChipInfo =
            unsafe { ioctl(self.file.as_fd(), Getter::<GET_CHIPINFO, ChipInfo>::new()) }.map_err(
                |err| GpioError::Io {
                    what: format!("reading {}'s label", self.path.display()),
                    source: err.into(),
                },
            )?;
        Ok(c_name(&info.label))
    }

    /// Claims `offsets` in `mode`: the lines are the returned value's until
    /// it is dropped.
    pub fn request(&self, offsets: &[u32], mode: LineMode) -> Result<Lines, GpioError> {
        let mut request = LineRequest::new(offsets, mode);
        // SAFETY: GPIO_V2_GET_LINE_IOCTL reads and writes a `struct
        // gpio_v2_line_request`, which `LineRequest` is.
        unsafe {
            ioctl(
                self.file.as_fd(),
                Updater::<GET_LINE, LineRequest>::new(&mut request),
            )
        }
        .map_err(|err| GpioError::Io {
            what: format!("claiming lines {offsets:?} of {}", self.path.display()),
            source: err.into(),
        })?;
        if request.fd < 0 {
            return Err(GpioError::Io {
                what: format!("claiming lines {offsets:?} of {}", self.path.display()),
                source: io::Error::from(io::ErrorKind::InvalidData),
            });
        }
        // SAFETY: the kernel has just opened this descriptor for us, and
        // nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(request.fd) };
        Ok(Lines::from_fd(fd))
    }
}

/// Lines held by one request: their edges are read from it, their values
/// read and set through it.
pub struct Lines {
    fd: OwnedFd,
}

impl Lines {
    /// The lines held by `fd`, a line request's descriptor, or anything
    /// that reads as one (the tests give it a pipe of edge records).
    pub fn from_fd(fd: OwnedFd) -> Lines {
        Lines { fd }
    }

    /// Waits up to `timeout` for edges and returns those the kernel has
    /// queued, at most `edges.len()`: how many were written (0: none came
    /// in time).
    pub fn wait_edges(&mut self, timeout: Duration, edges: &mut [Edge]) -> io::Result<usize> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let timeout = Timespec {
            tv_sec: timeout.as_secs().min(i64::MAX as u64) as i64,
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return Ok(0),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(0),
            Err(err) => return Err(err.into()),
        }
        // Up to eight records at a time: a read returns only whole ones.
        let mut buf = [0u8; EVENT_SIZE * 8];
        let want = edges.len().min(8) * EVENT_SIZE;
        let got = match rustix::io::read(&self.fd, &mut buf[..want]) {
            Ok(got) => got,
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => return Ok(0),
            Err(err) => return Err(err.into()),
        };
        let mut n = 0;
        for record in buf[..got].chunks_exact(EVENT_SIZE) {
            let record: &[u8; EVENT_SIZE] = record.try_into().expect("chunks of EVENT_SIZE");
            edges[n] = Edge::parse(record);
            n += 1;
        }
        Ok(n)
    }

    /// The lines' levels now: bit `i` for the request's line `i`, 1 high.
    pub fn values(&self) -> io::Result<u64> {
        let mut values = LineValues {
            bits: 0,
            mask: u64::MAX,
        };
        // SAFETY: GPIO_V2_LINE_GET_VALUES_IOCTL reads and writes a `struct
        // gpio_v2_line_values`, which `LineValues` is.
        unsafe {
            ioctl(
                &self.fd,
                Updater::<GET_VALUES, LineValues>::new(&mut values),
            )
        }?;
        Ok(values.bits & values.mask)
    }

    /// Drives the lines whose bit is set in `mask` to the levels in `bits`.
    pub fn set_values(&mut self, bits: u64, mask: u64) -> io::Result<()> {
        let mut values = LineValues { bits, mask };
        // SAFETY: as in `values`.
        unsafe {
            ioctl(
                &self.fd,
                Updater::<SET_VALUES, LineValues>::new(&mut values),
            )
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::mem::{offset_of, size_of};

    /// The kernel's sizes and offsets, from `include/uapi/linux/gpio.h`:
    /// the ioctl numbers carry the sizes, so one byte off and every request
    /// is refused (or worse, misread).
    #[test]
    fn the_structures_are_laid_out_as_the_kernels() {
        assert_eq!(size_of::<ChipInfo>(), 68);
        assert_eq!(size_of::<LineAttribute>(), 16);
        assert_eq!(size_of::<ConfigAttribute>(), 24);
        assert_eq!(size_of::<LineConfig>(), 272);
        assert_eq!(offset_of!(LineConfig, attrs), 32);
        assert_eq!(size_of::<LineRequest>(), 592);
        assert_eq!(offset_of!(LineRequest, consumer), 256);
        assert_eq!(offset_of!(LineRequest, config), 288);
        assert_eq!(offset_of!(LineRequest, num_lines), 560);
        assert_eq!(offset_of!(LineRequest, event_buffer_size), 564);
        assert_eq!(offset_of!(LineRequest, fd), 588);
        assert_eq!(size_of::<LineValues>(), 16);
    }

    /// The numbers `<linux/gpio.h>` gives on every Linux the Pi runs
    /// (aarch64, armv7) and on x86-64: `_IOR`/`_IOWR` of 0xB4.
    #[test]
    fn the_ioctl_numbers_are_the_headers() {
        assert_eq!(GET_CHIPINFO, 0x8044_B401);
        assert_eq!(GET_LINE, 0xC250_B407);
        assert_eq!(GET_VALUES, 0xC010_B40E);
        assert_eq!(SET_VALUES, 0xC010_B40F);
    }

    #[test]
    fn a_buttons_request_pulls_up_every_line_and_debounces_them_all() {
        let request = LineRequest::new(
            &[17, 27, 22],
            LineMode::FallingEdges {
                debounce: Some(Duration::from_millis(10)),
            },
        );
        assert_eq!(request.num_lines, 3);
        assert_eq!(&request.offsets[..4], &[17, 27, 22, 0]);
        assert_eq!(&request.consumer[..7], b"tocada\0");
        assert_eq!(request.config.flags, (1 << 2) | (1 << 5) | (1 << 8));
        assert_eq!(request.config.num_attrs, 1);
        let attr = request.config.attrs[0];
        assert_eq!(attr.attr.id, 3);
        assert_eq!(attr.mask, 0b111);
        // SAFETY: the debounce attribute was written through this field.
        assert_eq!(unsafe { attr.attr.value.debounce_period_us }, 10_000);
        let without = LineRequest::new(&[4], LineMode::FallingEdges { debounce: None });
        assert_eq!(without.config.num_attrs, 0);
    }

    #[test]
    fn an_output_starts_low() {
        let request = LineRequest::new(&[26], LineMode::OutputLow);
        assert_eq!(request.config.flags, 1 << 3);
        assert_eq!(request.config.num_attrs, 1);
        assert_eq!(request.config.attrs[0].attr.id, 2);
        assert_eq!(request.config.attrs[0].mask, 1);
        // SAFETY: the output values were written through this field.
        assert_eq!(unsafe { request.config.attrs[0].attr.value.values }, 0);
    }

    #[test]
    fn only_the_pis_own_chips_are_taken() {
        assert!(is_pi_chip("pinctrl-bcm2835"));
        assert!(is_pi_chip("pinctrl-bcm2711"));
        assert!(is_pi_chip("pinctrl-rp1"));
        assert!(!is_pi_chip("raspberrypi-exp-gpio"));
        assert!(!is_pi_chip("gpio-sim.0-node0"));
        assert_eq!(c_name(b"pinctrl-rp1\0\0\0\0"), "pinctrl-rp1");
    }

    /// A kernel event record, as `read` gives it.
    fn record(offset: u32, at_ns: u64, falling: bool) -> [u8; EVENT_SIZE] {
        let mut record = [0u8; EVENT_SIZE];
        record[0..8].copy_from_slice(&at_ns.to_ne_bytes());
        record[8..12].copy_from_slice(&(if falling { 2u32 } else { 1 }).to_ne_bytes());
        record[12..16].copy_from_slice(&offset.to_ne_bytes());
        record[16..20].copy_from_slice(&7u32.to_ne_bytes()); // seqno
        record
    }

    #[test]
    fn an_edge_record_gives_its_line_time_and_direction() {
        let edge = Edge::parse(&record(22, 1_234_567_891, true));
        assert_eq!(
            edge,
            Edge {
                offset: 22,
                at: Duration::new(1, 234_567_891),
                falling: true
            }
        );
        assert!(!Edge::parse(&record(22, 5, false)).falling);
    }

    /// A fake chip: a pipe carrying the kernel's records, which is what a
    /// line request's descriptor reads as.
    #[test]
    fn edges_are_read_whole_from_the_descriptor_and_a_quiet_line_times_out() {
        let (reader, writer) = std::io::pipe().unwrap();
        let mut lines = Lines::from_fd(OwnedFd::from(reader));
        let mut edges = [Edge {
            offset: 0,
            at: Duration::ZERO,
            falling: false,
        }; 4];
        assert_eq!(
            lines
                .wait_edges(Duration::from_millis(10), &mut edges)
                .unwrap(),
            0
        );
        let mut writer = std::fs::File::from(OwnedFd::from(writer));
        writer.write_all(&record(17, 10, true)).unwrap();
        writer.write_all(&record(27, 20, true)).unwrap();
        assert_eq!(
            lines
                .wait_edges(Duration::from_secs(1), &mut edges)
                .unwrap(),
            2
        );
        assert_eq!(
            (edges[0].offset, edges[0].at),
            (17, Duration::from_nanos(10))
        );
        assert_eq!(
            (edges[1].offset, edges[1].at),
            (27, Duration::from_nanos(20))
        );
        // One slot: one record read, the other left for the next wait.
        writer.write_all(&record(5, 30, true)).unwrap();
        writer.write_all(&record(6, 40, true)).unwrap();
        assert_eq!(
            lines
                .wait_edges(Duration::from_secs(1), &mut edges[..1])
                .unwrap(),
            1
        );
        assert_eq!(edges[0].offset, 5);
        assert_eq!(
            lines
                .wait_edges(Duration::from_secs(1), &mut edges)
                .unwrap(),
            1
        );
        assert_eq!(edges[0].offset, 6);
    }
}
