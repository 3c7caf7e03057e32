//! Framing: payload = type byte, sequence number, body, CRC-32C; on the wire
//! COBS(payload) followed by one 0x00. The encoder, a one-frame decoder and
//! the streaming [`Decoder`].

use core::fmt;
use core::marker::PhantomData;

use crc::{CRC_32_ISCSI, Crc};

use crate::message::{Frame, HostMessage, MatMessage, Message};
use crate::wire::{Reader, Writer};
use crate::{CRC_LEN, HEADER_LEN, MAX_ENCODED_LEN, MAX_FRAME_LEN, MAX_PAYLOAD_LEN};

/// CRC-32C (Castagnoli): poly 0x1EDC6F41, init and xorout 0xFFFFFFFF,
/// reflected in and out; check value 0xE3069283. A `static`, not a `const`:
/// a `const` would copy its 1 KiB table at every use.
static CRC32C: Crc<u32> = Crc::<u32>::new(&CRC_32_ISCSI);

/// The CRC-32C of `bytes`, as every frame carries it (PROTOCOL.md, "CRC").
pub fn crc32c(bytes: &[u8]) -> u32 {
    CRC32C.checksum(bytes)
}

/// Why a frame could not be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The output buffer is shorter than the framed bytes; `needed` is
    /// their length. A buffer of [`MAX_FRAME_LEN`] bytes always suffices.
    BufferTooSmall {
        /// The length the buffer needs.
        needed: usize,
    },
    /// A `ScanCells` whose states take more than
    /// [`MAX_SCAN_STATE_BYTES`](crate::MAX_SCAN_STATE_BYTES) bytes: no
    /// frame holds it, so the states must be split over more frames.
    TooManyStateBytes {
        /// The bytes the states take.
        len: usize,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::BufferTooSmall { needed } => {
                write!(f, "output buffer too small: the frame needs {needed} bytes")
            }
            EncodeError::TooManyStateBytes { len } => write!(
                f,
                "a scan chunk's states take {len} bytes, at most {} fit a frame",
                crate::MAX_SCAN_STATE_BYTES
            ),
        }
    }
}

impl core::error::Error for EncodeError {}

/// Why a frame was rejected. Each is a different fault; after any of them
/// the decoder starts afresh at the next 0x00.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes between two delimiters are not valid COBS.
    Cobs,
    /// The decoded payload is shorter than type byte, sequence number and
    /// CRC together (7 bytes).
    TooShort {
        /// The payload's length.
        len: usize,
    },
    /// The CRC does not match: the frame was corrupted.
    BadCrc {
        /// The CRC of the received payload.
        expected: u32,
        /// The CRC the frame carried.
        found: u32,
    },
    /// The type byte names no message of this direction.
    UnknownType(u8),
    /// The body's length does not fit the type's layout.
    BadLength {
        /// The type byte.
        ty: u8,
        /// The body's length (payload less type, sequence number and CRC).
        len: usize,
    },
    /// A field holds a value the protocol does not define.
    BadValue {
        /// The type byte.
        ty: u8,
        /// The field.
        field: &'static str,
    },
    /// A `Hello` in a protocol version this crate does not speak.
    UnsupportedProtocol {
        /// The version the peer speaks.
        protocol: u8,
    },
    /// The frame is longer than the decoder's buffer; its bytes were
    /// dropped up to the next 0x00.
    Oversized,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Cobs => f.write_str("malformed COBS"),
            DecodeError::TooShort { len } => {
                write!(f, "frame too short: {len} bytes, at least 7 needed")
            }
            DecodeError::BadCrc { expected, found } => {
                write!(
                    f,
                    "bad CRC: computed {expected:#010x}, frame says {found:#010x}"
                )
            }
            DecodeError::UnknownType(ty) => write!(f, "unknown message type {ty:#04x}"),
            DecodeError::BadLength { ty, len } => {
                write!(f, "message type {ty:#04x} cannot have a {len}-byte body")
            }
            DecodeError::BadValue { ty, field } => {
                write!(f, "message type {ty:#04x}: invalid {field}")
            }
            DecodeError::UnsupportedProtocol { protocol } => write!(
                f,
                "the peer speaks protocol version {protocol}, this side speaks {} to {}",
                crate::OLDEST_PROTOCOL_VERSION,
                crate::PROTOCOL_VERSION
            ),
            DecodeError::Oversized => f.write_str("frame longer than the receive buffer"),
        }
    }
}

impl core::error::Error for DecodeError {}

/// Writes the payload of `frame` (type, sequence number, body, CRC) into
/// `payload`; returns its length.
fn write_payload<M: Message>(
    frame: &Frame<M>,
    payload: &mut [u8; MAX_PAYLOAD_LEN],
) -> Result<usize, EncodeError> {
    let mut w = Writer::new(payload);
    w.u8(frame.message.type_byte())?;
    w.u16(frame.seq)?;
    frame.message.write_body(&mut w)?;
    let len = w.len();
    let crc = crc32c(payload.get(..len).unwrap_or(&[]));
    let mut w = Writer::new(payload.get_mut(len..).unwrap_or(&mut []));
    w.u32(crc)?;
    Ok(len + CRC_LEN)
}

/// Encodes `frame` into `out` as it goes on the wire — COBS, then the 0x00
/// delimiter — and returns the number of bytes written. `out` needs at most
/// [`MAX_FRAME_LEN`] bytes.
pub fn encode<M: Message>(frame: &Frame<M>, out: &mut [u8]) -> Result<usize, EncodeError> {
    let mut payload = [0u8; MAX_PAYLOAD_LEN];
    let len = write_payload(frame, &mut payload)?;
    let mut framed = [0u8; MAX_FRAME_LEN];
    // MAX_ENCODED_LEN is COBS's worst case for MAX_PAYLOAD_LEN: never fails.
    let encoded = cobs::try_encode(
        payload.get(..len).unwrap_or(&[]),
        &mut framed[..MAX_ENCODED_LEN],
    )
    .map_err(|_| EncodeError::BufferTooSmall {
        needed: MAX_FRAME_LEN,
    })?;
    // framed[encoded] is already 0: the delimiter.
    let total = encoded + 1;
    out.get_mut(..total)
        .ok_or(EncodeError::BufferTooSmall { needed: total })?
        .copy_from_slice(&framed[..total]);
    Ok(total)
}

/// Decodes one frame's COBS bytes (without the delimiter), in place.
fn decode_in_place<M: Message>(encoded: &mut [u8]) -> Result<Frame<M>, DecodeError> {
    let len = cobs::decode_in_place(encoded).map_err(|_| DecodeError::Cobs)?;
    let payload = encoded.get(..len).ok_or(DecodeError::Cobs)?;
    if len < HEADER_LEN + CRC_LEN {
        return Err(DecodeError::TooShort { len });
    }
    let (data, crc) = payload.split_at(len - CRC_LEN);
    let found = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    let expected = crc32c(data);
    if found != expected {
        return Err(DecodeError::BadCrc { expected, found });
    }
    let (header, body) = data.split_at(HEADER_LEN);
    let ty = header[0];
    let seq = u16::from_le_bytes([header[1], header[2]]);
    let mut r = Reader::new(ty, body);
    let message = M::read_body(ty, &mut r)?;
    r.finish()?;
    Ok(Frame { seq, message })
}

/// Decodes one whole frame: its COBS bytes, with or without the trailing
/// 0x00 (no other 0x00 may appear). For a byte stream use [`Decoder`].
pub fn decode<M: Message>(frame: &[u8]) -> Result<Frame<M>, DecodeError> {
    let encoded = frame.strip_suffix(&[0]).unwrap_or(frame);
    if encoded.contains(&0) {
        return Err(DecodeError::Cobs);
    }
    let mut buf = [0u8; MAX_ENCODED_LEN];
    let buf = buf.get_mut(..encoded.len()).ok_or(DecodeError::Oversized)?;
    buf.copy_from_slice(encoded);
    decode_in_place(buf)
}

/// A streaming decoder with an `N`-byte buffer for one frame's COBS bytes.
///
/// Feed it bytes as they arrive, one at a time ([`Decoder::push`]) or in
/// slices ([`Decoder::feed`]). Every 0x00 ends a frame: it yields the frame
/// or the reason it was rejected, then starts afresh, so one bad frame costs
/// that frame only. Empty frames (0x00 after 0x00) are skipped silently.
/// Bytes beyond `N` are dropped until the next 0x00, which then yields
/// [`DecodeError::Oversized`]. It never allocates and never panics.
///
/// `N` = [`MAX_ENCODED_LEN`] holds every frame of this protocol version:
/// see [`MatDecoder`] and [`HostDecoder`].
///
/// After connecting mid-stream, the first "frame" is usually the tail of
/// one and is rejected; that is expected.
#[derive(Clone)]
pub struct Decoder<M, const N: usize> {
    buf: [u8; N],
    len: usize,
    overflow: bool,
    _message: PhantomData<fn() -> M>,
}

/// The host's decoder for the mat's frames.
pub type MatDecoder = Decoder<MatMessage, MAX_ENCODED_LEN>;

/// The mat's decoder for the host's frames.
pub type HostDecoder = Decoder<HostMessage, MAX_ENCODED_LEN>;

impl<M: Message, const N: usize> Default for Decoder<M, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Message, const N: usize> fmt::Debug for Decoder<M, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("buffered", &self.len)
            .field("overflow", &self.overflow)
            .finish()
    }
}

impl<M: Message, const N: usize> Decoder<M, N> {
    /// A decoder at a frame boundary.
    pub const fn new() -> Self {
        Decoder {
            buf: [0; N],
            len: 0,
            overflow: false,
            _message: PhantomData,
        }
    }

    /// Forgets any partial frame: the next byte starts a new one.
    pub fn reset(&mut self) {
        self.len = 0;
        self.overflow = false;
    }

    /// Whether no partial frame is buffered (the last byte was a 0x00, or
    /// nothing came yet).
    pub fn is_idle(&self) -> bool {
        self.len == 0 && !self.overflow
    }

    /// Takes one byte; at a 0x00 that ends a non-empty frame, returns the
    /// frame or why it was rejected.
    pub fn push(&mut self, byte: u8) -> Option<Result<Frame<M>, DecodeError>> {
        if byte == 0 {
            return self.end_frame();
        }
        self.append(&[byte]);
        None
    }

    /// Takes a slice of bytes; the iterator yields what [`Decoder::push`]
    /// would for each byte, in order. Drain it: bytes it has not reached
    /// when dropped are not taken.
    pub fn feed<'d, 'b>(&'d mut self, bytes: &'b [u8]) -> Feed<'d, 'b, M, N> {
        Feed {
            decoder: self,
            rest: bytes,
        }
    }

    fn append(&mut self, bytes: &[u8]) {
        if self.overflow {
            return;
        }
        let end = self.len + bytes.len();
        match self.buf.get_mut(self.len..end) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.overflow = true,
        }
    }

    fn end_frame(&mut self) -> Option<Result<Frame<M>, DecodeError>> {
        let len = core::mem::take(&mut self.len);
        if core::mem::take(&mut self.overflow) {
            return Some(Err(DecodeError::Oversized));
        }
        if len == 0 {
            return None;
        }
        Some(decode_in_place(self.buf.get_mut(..len)?))
    }
}

/// The frames and errors in a slice fed to a [`Decoder`]; see
/// [`Decoder::feed`].
pub struct Feed<'d, 'b, M, const N: usize> {
    decoder: &'d mut Decoder<M, N>,
    rest: &'b [u8],
}

impl<M: Message, const N: usize> Iterator for Feed<'_, '_, M, N> {
    type Item = Result<Frame<M>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.rest.iter().position(|&b| b == 0) {
                Some(end) => {
                    let (chunk, rest) = self.rest.split_at(end);
                    self.rest = rest.get(1..).unwrap_or(&[]);
                    self.decoder.append(chunk);
                    if let Some(result) = self.decoder.end_frame() {
                        return Some(result);
                    }
                }
                None => {
                    self.decoder.append(core::mem::take(&mut self.rest));
                    return None;
                }
            }
        }
    }
}
