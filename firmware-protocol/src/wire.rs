//! Little-endian field writing and reading over byte slices, without panics.

use crate::codec::{DecodeError, EncodeError};

/// Writes fields into a payload buffer.
pub struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> Writer<'a> {
    pub fn new(buf: &'a mut [u8]) -> Writer<'a> {
        Writer { buf, len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let end = self.len + bytes.len();
        self.buf
            .get_mut(self.len..end)
            // The payload buffer holds the largest message the types allow,
            // so this is never reached.
            .ok_or(EncodeError::BufferTooSmall { needed: end })?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    pub fn u8(&mut self, v: u8) -> Result<(), EncodeError> {
        self.bytes(&[v])
    }

    pub fn u16(&mut self, v: u16) -> Result<(), EncodeError> {
        self.bytes(&v.to_le_bytes())
    }

    pub fn u32(&mut self, v: u32) -> Result<(), EncodeError> {
        self.bytes(&v.to_le_bytes())
    }

    pub fn u64(&mut self, v: u64) -> Result<(), EncodeError> {
        self.bytes(&v.to_le_bytes())
    }
}

/// Reads the fields of one message body of type `ty`. Running short, or
/// leaving bytes over ([`Reader::finish`]), is `BadLength`.
pub struct Reader<'a> {
    ty: u8,
    body: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(ty: u8, body: &'a [u8]) -> Reader<'a> {
        Reader { ty, body, pos: 0 }
    }

    fn bad_length(&self) -> DecodeError {
        DecodeError::BadLength {
            ty: self.ty,
            len: self.body.len(),
        }
    }

    pub fn bad_value(&self, field: &'static str) -> DecodeError {
        DecodeError::BadValue { ty: self.ty, field }
    }

    pub fn array<const K: usize>(&mut self) -> Result<[u8; K], DecodeError> {
        let end = self.pos + K;
        let bytes = self
            .body
            .get(self.pos..end)
            .and_then(|b| <[u8; K]>::try_from(b).ok())
            .ok_or_else(|| self.bad_length())?;
        self.pos = end;
        Ok(bytes)
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        self.array::<1>().map(|[b]| b)
    }

    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        self.array().map(u16::from_le_bytes)
    }

    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        self.array().map(u32::from_le_bytes)
    }

    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        self.array().map(u64::from_le_bytes)
    }

    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.pos == self.body.len() {
            Ok(())
        } else {
            Err(self.bad_length())
        }
    }
}
