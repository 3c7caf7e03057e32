//! The card-reader mat's wire protocol, shared by the host (arbiter) and the
//! mat's firmware. `PROTOCOL.md` beside this crate is the specification;
//! this crate is its reference implementation.
//!
//! `no_std` and no allocator: every message is a fixed-size value, the
//! encoder writes into the caller's buffer, and the streaming [`Decoder`]
//! owns one fixed buffer. Nothing panics on any input.
//!
//! ```
//! use firmware_protocol::{Frame, MatDecoder, MatMessage, MAX_FRAME_LEN, encode};
//!
//! let mut wire = [0u8; MAX_FRAME_LEN];
//! let frame = Frame::new(7, MatMessage::Heartbeat { uptime_ms: 1000 });
//! let n = encode(&frame, &mut wire).unwrap();
//!
//! let mut decoder = MatDecoder::new();
//! let got: Vec<_> = decoder.feed(&wire[..n]).collect();
//! assert_eq!(got, [Ok(frame)]);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod codec;
mod message;
mod seq;
mod types;
mod wire;

pub use codec::{
    DecodeError, Decoder, EncodeError, Feed, HostDecoder, MatDecoder, crc32c, decode, encode,
};
pub use message::{CellStates, Frame, HostMessage, LedEntries, MatMessage, Message};
pub use seq::{SeqStatus, SequenceTracker};
pub use types::{
    Blink, CapacityError, CellIndex, CellState, Colour, ErrorKind, Face, FixedVec, Geometry,
    LedEntry, TagId,
};

/// The newest protocol version this crate speaks (PROTOCOL.md, "Versions").
pub const PROTOCOL_VERSION: u8 = 2;

/// The oldest protocol version this crate speaks: it speaks every version
/// from this one to [`PROTOCOL_VERSION`].
pub const OLDEST_PROTOCOL_VERSION: u8 = 1;

/// Whether this crate speaks protocol `version`.
pub const fn speaks(version: u8) -> bool {
    version >= OLDEST_PROTOCOL_VERSION && version <= PROTOCOL_VERSION
}

/// The most cell states in one `ScanCells` frame.
pub const MAX_SCAN_CELLS: usize = 16;

/// The most bytes the cell states of one `ScanCells` frame take: sixteen
/// one-card states. A frame with pairs (17 bytes each) holds fewer states.
pub const MAX_SCAN_STATE_BYTES: usize = MAX_SCAN_CELLS * MAX_STATE_LEN;

/// The most LED settings in one `SetLeds` frame.
pub const MAX_LED_ENTRIES: usize = 24;

/// Type byte and sequence number: the start of every payload.
pub const HEADER_LEN: usize = 3;

/// The CRC-32C at the end of every payload.
pub const CRC_LEN: usize = 4;

/// The longest one-card cell state on the wire: state byte and tag.
const MAX_STATE_LEN: usize = 1 + 8;

/// The longest payload (before COBS): a full `ScanCells` frame, 156 bytes.
pub const MAX_PAYLOAD_LEN: usize = {
    let scan_cells = HEADER_LEN + 2 + 2 + 1 + MAX_SCAN_CELLS * MAX_STATE_LEN + CRC_LEN;
    let set_leds = HEADER_LEN + 1 + MAX_LED_ENTRIES * 6 + CRC_LEN;
    if scan_cells > set_leds {
        scan_cells
    } else {
        set_leds
    }
};

/// The longest COBS encoding of a payload, without the delimiter: 157.
pub const MAX_ENCODED_LEN: usize = cobs::max_encoding_length(MAX_PAYLOAD_LEN);

/// The longest frame on the wire, delimiter included: 158 bytes. A buffer
/// this long holds any frame [`encode`] makes.
pub const MAX_FRAME_LEN: usize = MAX_ENCODED_LEN + 1;
