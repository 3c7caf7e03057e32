//! The messages of both directions and their body layouts (PROTOCOL.md,
//! "Messages"). The framing around a body — type byte, sequence number,
//! CRC, COBS — is `codec`'s.

use crate::codec::{DecodeError, EncodeError};
use crate::types::{
    Blink, CellIndex, CellState, Colour, ErrorKind, Face, FixedVec, Geometry, LedEntry, TagId,
};
use crate::wire::{Reader, Writer};
use crate::{MAX_LED_ENTRIES, MAX_SCAN_CELLS, MAX_SCAN_STATE_BYTES};

/// Up to [`MAX_SCAN_CELLS`] cell states: one chunk of a full scan.
pub type CellStates = FixedVec<CellState, MAX_SCAN_CELLS>;

/// Up to [`MAX_LED_ENTRIES`] LED settings: one `SetLeds` request.
pub type LedEntries = FixedVec<LedEntry, MAX_LED_ENTRIES>;

/// One frame's content: the sender's sequence number and the message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame<M> {
    /// The sender's frame counter: one more than its previous frame's,
    /// wrapping from 65 535 to 0.
    pub seq: u16,
    /// What the frame says.
    pub message: M,
}

impl<M> Frame<M> {
    /// A frame numbered `seq` carrying `message`.
    pub const fn new(seq: u16, message: M) -> Frame<M> {
        Frame { seq, message }
    }
}

/// A message of either direction: [`MatMessage`] or [`HostMessage`].
/// Sealed: the codec knows these two only.
pub trait Message: sealed::Codec {}

pub(crate) mod sealed {
    use crate::codec::{DecodeError, EncodeError};
    use crate::wire::{Reader, Writer};

    pub trait Codec: Sized {
        fn type_byte(&self) -> u8;
        fn write_body(&self, w: &mut Writer<'_>) -> Result<(), EncodeError>;
        /// Reads the body of a frame of type `ty`; the reader checks that
        /// nothing is left over.
        fn read_body(ty: u8, r: &mut Reader<'_>) -> Result<Self, DecodeError>;
    }
}

/// A frame from the mat to the host.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[allow(
    clippy::large_enum_variant,
    reason = "no allocator: a scan chunk is stored inline, and frames are few"
)]
pub enum MatMessage {
    /// Who the mat is: sent on connect and in answer to the host's `Hello`.
    Hello {
        /// The protocol version the mat speaks in this session: the one the
        /// host greeted it with when the mat speaks that one too.
        protocol: u8,
        /// The firmware's version: major, minor, patch.
        firmware: [u8; 3],
        /// The grid of cells.
        geometry: Geometry,
        /// Whether the cells have LEDs that `SetLeds` can light.
        leds: bool,
    },
    /// A full scan starts: `cells` states follow in `ScanCells` frames.
    ScanBegin {
        /// Names this scan; every frame of it carries the same id.
        scan_id: u16,
        /// How many cells the scan covers: all of them, `cols × rows`.
        cells: u16,
    },
    /// A chunk of a full scan: the states of consecutive cells, in scan
    /// order (row-major), from position `first`.
    ScanCells {
        /// The scan this chunk belongs to.
        scan_id: u16,
        /// Scan position of the first state: `row × cols + col`.
        first: u16,
        /// The states, at most [`MAX_SCAN_CELLS`] taking at most
        /// [`MAX_SCAN_STATE_BYTES`] bytes.
        states: CellStates,
    },
    /// The full scan is complete.
    ScanEnd {
        /// The scan that ends.
        scan_id: u16,
    },
    /// A cell's state changed; `state` is its whole new state.
    CellChange {
        /// The cell.
        cell: CellIndex,
        /// What it holds now.
        state: CellState,
    },
    /// The mat is alive; sent every second.
    Heartbeat {
        /// Milliseconds since the mat started, wrapping.
        uptime_ms: u32,
    },
    /// Something went wrong on the mat.
    Error {
        /// What.
        kind: ErrorKind,
        /// Where, when it concerns one cell.
        cell: Option<CellIndex>,
        /// A firmware-specific code for the logs (0: none).
        detail: u16,
    },
    /// The answer to a `Ping`.
    Pong {
        /// The ping's nonce.
        nonce: u32,
    },
}

/// A frame from the host to the mat.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HostMessage {
    /// The host starts a session; the mat answers with its `Hello`.
    Hello {
        /// The protocol version the host asks for: its newest,
        /// [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION), unless the mat
        /// answered with an older one.
        protocol: u8,
    },
    /// Send a full scan.
    RequestScan,
    /// Set the LEDs of some cells; the others keep theirs.
    SetLeds {
        /// The settings, at most [`MAX_LED_ENTRIES`], applied in order.
        leds: LedEntries,
    },
    /// Turn every LED off.
    ClearLeds,
    /// Answer with a `Pong` carrying `nonce`.
    Ping {
        /// Any number; the `Pong` repeats it.
        nonce: u32,
    },
}

impl MatMessage {
    /// Type byte of [`MatMessage::Hello`].
    pub const HELLO: u8 = 0x01;
    /// Type byte of [`MatMessage::ScanBegin`].
    pub const SCAN_BEGIN: u8 = 0x02;
    /// Type byte of [`MatMessage::ScanCells`].
    pub const SCAN_CELLS: u8 = 0x03;
    /// Type byte of [`MatMessage::ScanEnd`].
    pub const SCAN_END: u8 = 0x04;
    /// Type byte of [`MatMessage::CellChange`].
    pub const CELL_CHANGE: u8 = 0x05;
    /// Type byte of [`MatMessage::Heartbeat`].
    pub const HEARTBEAT: u8 = 0x06;
    /// Type byte of [`MatMessage::Error`].
    pub const ERROR: u8 = 0x07;
    /// Type byte of [`MatMessage::Pong`].
    pub const PONG: u8 = 0x08;

    /// The type byte that starts this message's frames.
    pub fn type_byte(&self) -> u8 {
        sealed::Codec::type_byte(self)
    }
}

impl HostMessage {
    /// Type byte of [`HostMessage::Hello`].
    pub const HELLO: u8 = 0x81;
    /// Type byte of [`HostMessage::RequestScan`].
    pub const REQUEST_SCAN: u8 = 0x82;
    /// Type byte of [`HostMessage::SetLeds`].
    pub const SET_LEDS: u8 = 0x83;
    /// Type byte of [`HostMessage::ClearLeds`].
    pub const CLEAR_LEDS: u8 = 0x84;
    /// Type byte of [`HostMessage::Ping`].
    pub const PING: u8 = 0x85;

    /// The type byte that starts this message's frames.
    pub fn type_byte(&self) -> u8 {
        sealed::Codec::type_byte(self)
    }
}

impl Message for MatMessage {}
impl Message for HostMessage {}

// Field encodings shared by several messages.

const STATE_EMPTY: u8 = 0;
const STATE_FACE_UP: u8 = 1;
const STATE_FACE_DOWN: u8 = 2;
const STATE_UNREADABLE: u8 = 3;
const STATE_PAIR: u8 = 4;

fn write_state(w: &mut Writer<'_>, state: &CellState) -> Result<(), EncodeError> {
    match *state {
        CellState::Empty => w.u8(STATE_EMPTY),
        CellState::Unreadable => w.u8(STATE_UNREADABLE),
        CellState::Pair { tags: [a, b] } => {
            w.u8(STATE_PAIR)?;
            w.u64(a.0)?;
            w.u64(b.0)
        }
        CellState::Card { tag, face } => {
            w.u8(match face {
                Face::Up => STATE_FACE_UP,
                Face::Down => STATE_FACE_DOWN,
            })?;
            w.u64(tag.0)
        }
    }
}

fn read_state(r: &mut Reader<'_>) -> Result<CellState, DecodeError> {
    let face = match r.u8()? {
        STATE_EMPTY => return Ok(CellState::Empty),
        STATE_UNREADABLE => return Ok(CellState::Unreadable),
        STATE_PAIR => {
            return Ok(CellState::Pair {
                tags: [TagId(r.u64()?), TagId(r.u64()?)],
            });
        }
        STATE_FACE_UP => Face::Up,
        STATE_FACE_DOWN => Face::Down,
        _ => return Err(r.bad_value("cell state")),
    };
    Ok(CellState::Card {
        tag: TagId(r.u64()?),
        face,
    })
}

fn write_cell(w: &mut Writer<'_>, cell: CellIndex) -> Result<(), EncodeError> {
    w.u8(cell.col)?;
    w.u8(cell.row)
}

fn read_cell(r: &mut Reader<'_>) -> Result<CellIndex, DecodeError> {
    Ok(CellIndex::new(r.u8()?, r.u8()?))
}

fn error_code(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::SensorFault => 1,
        ErrorKind::TwoTags => 2,
        ErrorKind::BufferOverrun => 3,
        ErrorKind::HostFrameLost => 4,
        ErrorKind::BadRequest => 5,
    }
}

fn error_kind(code: u8) -> Option<ErrorKind> {
    Some(match code {
        1 => ErrorKind::SensorFault,
        2 => ErrorKind::TwoTags,
        3 => ErrorKind::BufferOverrun,
        4 => ErrorKind::HostFrameLost,
        5 => ErrorKind::BadRequest,
        _ => return None,
    })
}

fn blink_code(blink: Blink) -> u8 {
    match blink {
        Blink::Steady => 0,
        Blink::Slow => 1,
        Blink::Fast => 2,
    }
}

/// The `Hello` rule that holds in every protocol version: the protocol byte
/// comes first, and a version this crate does not speak is reported as such
/// whatever follows it.
fn read_protocol(r: &mut Reader<'_>) -> Result<u8, DecodeError> {
    let protocol = r.u8()?;
    if !crate::speaks(protocol) {
        return Err(DecodeError::UnsupportedProtocol { protocol });
    }
    Ok(protocol)
}

/// Bit 0 of the `Hello` flags byte: the cells have LEDs. The other bits are
/// reserved: sent as 0, ignored on receipt.
const FLAG_LEDS: u8 = 0x01;

impl sealed::Codec for MatMessage {
    fn type_byte(&self) -> u8 {
        match self {
            MatMessage::Hello { .. } => MatMessage::HELLO,
            MatMessage::ScanBegin { .. } => MatMessage::SCAN_BEGIN,
            MatMessage::ScanCells { .. } => MatMessage::SCAN_CELLS,
            MatMessage::ScanEnd { .. } => MatMessage::SCAN_END,
            MatMessage::CellChange { .. } => MatMessage::CELL_CHANGE,
            MatMessage::Heartbeat { .. } => MatMessage::HEARTBEAT,
            MatMessage::Error { .. } => MatMessage::ERROR,
            MatMessage::Pong { .. } => MatMessage::PONG,
        }
    }

    fn write_body(&self, w: &mut Writer<'_>) -> Result<(), EncodeError> {
        match self {
            MatMessage::Hello {
                protocol,
                firmware,
                geometry,
                leds,
            } => {
                w.u8(*protocol)?;
                w.bytes(firmware)?;
                w.u8(geometry.cols)?;
                w.u8(geometry.rows)?;
                w.u16(geometry.pitch_x_mm)?;
                w.u16(geometry.pitch_y_mm)?;
                w.u8(if *leds { FLAG_LEDS } else { 0 })
            }
            MatMessage::ScanBegin { scan_id, cells } => {
                w.u16(*scan_id)?;
                w.u16(*cells)
            }
            MatMessage::ScanCells {
                scan_id,
                first,
                states,
            } => {
                w.u16(*scan_id)?;
                w.u16(*first)?;
                let len: usize = states.iter().map(CellState::wire_len).sum();
                if len > MAX_SCAN_STATE_BYTES {
                    return Err(EncodeError::TooManyStateBytes { len });
                }
                // len ≤ MAX_SCAN_CELLS = 16: the type guarantees it.
                w.u8(states.len() as u8)?;
                states.iter().try_for_each(|s| write_state(w, s))
            }
            MatMessage::ScanEnd { scan_id } => w.u16(*scan_id),
            MatMessage::CellChange { cell, state } => {
                write_cell(w, *cell)?;
                write_state(w, state)
            }
            MatMessage::Heartbeat { uptime_ms } => w.u32(*uptime_ms),
            MatMessage::Error { kind, cell, detail } => {
                w.u8(error_code(*kind))?;
                match cell {
                    Some(cell) => {
                        w.u8(1)?;
                        write_cell(w, *cell)?;
                    }
                    None => w.bytes(&[0, 0, 0])?,
                }
                w.u16(*detail)
            }
            MatMessage::Pong { nonce } => w.u32(*nonce),
        }
    }

    fn read_body(ty: u8, r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(match ty {
            MatMessage::HELLO => {
                let protocol = read_protocol(r)?;
                let firmware = r.array()?;
                let geometry = Geometry {
                    cols: r.u8()?,
                    rows: r.u8()?,
                    pitch_x_mm: r.u16()?,
                    pitch_y_mm: r.u16()?,
                };
                if geometry.cols == 0 || geometry.rows == 0 {
                    return Err(r.bad_value("geometry"));
                }
                let leds = r.u8()? & FLAG_LEDS != 0;
                MatMessage::Hello {
                    protocol,
                    firmware,
                    geometry,
                    leds,
                }
            }
            MatMessage::SCAN_BEGIN => MatMessage::ScanBegin {
                scan_id: r.u16()?,
                cells: r.u16()?,
            },
            MatMessage::SCAN_CELLS => {
                let scan_id = r.u16()?;
                let first = r.u16()?;
                let count = r.u8()?;
                let mut states = CellStates::new();
                if usize::from(count) > MAX_SCAN_CELLS {
                    return Err(r.bad_value("count"));
                }
                for _ in 0..count {
                    // Cannot fail: count ≤ capacity was checked above.
                    states
                        .push(read_state(r)?)
                        .map_err(|_| r.bad_value("count"))?;
                }
                MatMessage::ScanCells {
                    scan_id,
                    first,
                    states,
                }
            }
            MatMessage::SCAN_END => MatMessage::ScanEnd { scan_id: r.u16()? },
            MatMessage::CELL_CHANGE => MatMessage::CellChange {
                cell: read_cell(r)?,
                state: read_state(r)?,
            },
            MatMessage::HEARTBEAT => MatMessage::Heartbeat {
                uptime_ms: r.u32()?,
            },
            MatMessage::ERROR => {
                let kind = error_kind(r.u8()?).ok_or_else(|| r.bad_value("error kind"))?;
                let has_cell = r.u8()?;
                let cell = read_cell(r)?;
                let cell = match has_cell {
                    0 => None,
                    1 => Some(cell),
                    _ => return Err(r.bad_value("has cell")),
                };
                MatMessage::Error {
                    kind,
                    cell,
                    detail: r.u16()?,
                }
            }
            MatMessage::PONG => MatMessage::Pong { nonce: r.u32()? },
            _ => return Err(DecodeError::UnknownType(ty)),
        })
    }
}

impl sealed::Codec for HostMessage {
    fn type_byte(&self) -> u8 {
        match self {
            HostMessage::Hello { .. } => HostMessage::HELLO,
            HostMessage::RequestScan => HostMessage::REQUEST_SCAN,
            HostMessage::SetLeds { .. } => HostMessage::SET_LEDS,
            HostMessage::ClearLeds => HostMessage::CLEAR_LEDS,
            HostMessage::Ping { .. } => HostMessage::PING,
        }
    }

    fn write_body(&self, w: &mut Writer<'_>) -> Result<(), EncodeError> {
        match self {
            HostMessage::Hello { protocol } => w.u8(*protocol),
            HostMessage::RequestScan | HostMessage::ClearLeds => Ok(()),
            HostMessage::SetLeds { leds } => {
                // len ≤ MAX_LED_ENTRIES = 24: the type guarantees it.
                w.u8(leds.len() as u8)?;
                leds.iter().try_for_each(|led| {
                    write_cell(w, led.cell)?;
                    w.bytes(&[led.colour.r, led.colour.g, led.colour.b])?;
                    w.u8(blink_code(led.blink))
                })
            }
            HostMessage::Ping { nonce } => w.u32(*nonce),
        }
    }

    fn read_body(ty: u8, r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(match ty {
            HostMessage::HELLO => HostMessage::Hello {
                protocol: read_protocol(r)?,
            },
            HostMessage::REQUEST_SCAN => HostMessage::RequestScan,
            HostMessage::SET_LEDS => {
                let count = r.u8()?;
                if usize::from(count) > MAX_LED_ENTRIES {
                    return Err(r.bad_value("count"));
                }
                let mut leds = LedEntries::new();
                for _ in 0..count {
                    let cell = read_cell(r)?;
                    let [red, green, blue] = r.array()?;
                    let blink = match r.u8()? {
                        0 => Blink::Steady,
                        1 => Blink::Slow,
                        2 => Blink::Fast,
                        _ => return Err(r.bad_value("blink")),
                    };
                    let led = LedEntry {
                        cell,
                        colour: Colour::rgb(red, green, blue),
                        blink,
                    };
                    // Cannot fail: count ≤ capacity was checked above.
                    leds.push(led).map_err(|_| r.bad_value("count"))?;
                }
                HostMessage::SetLeds { leds }
            }
            HostMessage::CLEAR_LEDS => HostMessage::ClearLeds,
            HostMessage::PING => HostMessage::Ping { nonce: r.u32()? },
            _ => return Err(DecodeError::UnknownType(ty)),
        })
    }
}
