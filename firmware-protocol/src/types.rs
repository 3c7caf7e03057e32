//! The vocabulary the messages are made of: cells, tags, faces, the mat's
//! geometry, LED settings, error kinds, and a fixed-capacity list.

use core::fmt;
use core::ops::Deref;

/// A tag's identity: an opaque 64-bit number.
///
/// For an NFC tag it is the UID read as a big-endian number, UID0 most
/// significant, zero-extended: the 7-byte UID `04 A2 3B 4C 5D 6E 7F` is
/// `TagId(0x0004_A23B_4C5D_6E7F)`, so its hex form is the UID as NFC tools
/// print it. On the wire it is a little-endian `u64`, like every integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TagId(pub u64);

impl fmt::Display for TagId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}", self.0)
    }
}

/// Which face of the top card in a cell is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    /// The card's face is up: for En Prise, a piece.
    Up,
    /// The card's back is up: for En Prise, a vacant square.
    Down,
}

/// What a cell holds, as the mat reads it: its top card, or (protocol 2)
/// both cards of a pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CellState {
    /// No card.
    #[default]
    Empty,
    /// A card: the top one, when cards are stacked.
    Card {
        /// The card's tag.
        tag: TagId,
        /// Which face is up.
        face: Face,
    },
    /// The mat cannot say what the top card is: the cell's reader is faulty,
    /// or it sees two tags it cannot order. An `Error` frame says which.
    Unreadable,
    /// Protocol 2 only: two cards lie face up in the cell and both count,
    /// such as an Enochian throne holding a king and its partner. Which
    /// one is on top does not matter, so the order of the tags means
    /// nothing.
    Pair {
        /// The two cards' tags.
        tags: [TagId; 2],
    },
}

impl CellState {
    /// The state's length on the wire: the state byte and its tags.
    pub const fn wire_len(&self) -> usize {
        match self {
            CellState::Empty | CellState::Unreadable => 1,
            CellState::Card { .. } => 1 + 8,
            CellState::Pair { .. } => 1 + 16,
        }
    }
}

/// A cell of the mat: column and row, from 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellIndex {
    /// The column, along the mat's x axis.
    pub col: u8,
    /// The row, along the mat's y axis.
    pub row: u8,
}

impl CellIndex {
    /// The cell at `col`, `row`.
    pub const fn new(col: u8, row: u8) -> CellIndex {
        CellIndex { col, row }
    }
}

/// The mat's grid of cells, and how far apart their centres are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// Number of columns, at least 1.
    pub cols: u8,
    /// Number of rows, at least 1.
    pub rows: u8,
    /// Distance between the centres of two neighbouring columns, in mm.
    pub pitch_x_mm: u16,
    /// Distance between the centres of two neighbouring rows, in mm.
    pub pitch_y_mm: u16,
}

impl Geometry {
    /// Number of cells: `cols × rows` (at most 65 025).
    pub const fn cells(&self) -> u16 {
        self.cols as u16 * self.rows as u16
    }

    /// Whether `cell` lies on the mat.
    pub const fn contains(&self, cell: CellIndex) -> bool {
        cell.col < self.cols && cell.row < self.rows
    }

    /// The cell's position in a full scan: row-major, `row × cols + col`.
    pub const fn index_of(&self, cell: CellIndex) -> Option<u16> {
        if self.contains(cell) {
            Some(cell.row as u16 * self.cols as u16 + cell.col as u16)
        } else {
            None
        }
    }

    /// The cell at position `index` of a full scan.
    pub const fn cell_at(&self, index: u16) -> Option<CellIndex> {
        if self.cols == 0 || index >= self.cells() {
            return None;
        }
        let cols = self.cols as u16;
        // Both fit: index < cols × rows, so index / cols < rows ≤ 255.
        Some(CellIndex::new((index % cols) as u8, (index / cols) as u8))
    }
}

/// An LED colour request. `(0, 0, 0)` is off; a mat with fewer colours
/// shows the nearest it has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Colour {
    /// Red, 0–255.
    pub r: u8,
    /// Green, 0–255.
    pub g: u8,
    /// Blue, 0–255.
    pub b: u8,
}

impl Colour {
    /// The LED off.
    pub const OFF: Colour = Colour::rgb(0, 0, 0);

    /// A colour from its red, green and blue parts.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Colour {
        Colour { r, g, b }
    }
}

/// How a cell's LED blinks. All blinking LEDs of a mat blink in phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Blink {
    /// Steadily lit (no blinking).
    #[default]
    Steady,
    /// 1 Hz: 500 ms on, 500 ms off.
    Slow,
    /// 4 Hz: 125 ms on, 125 ms off.
    Fast,
}

/// One cell's LED setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LedEntry {
    /// The cell.
    pub cell: CellIndex,
    /// Its colour; [`Colour::OFF`] turns it off.
    pub colour: Colour,
    /// Its blinking.
    pub blink: Blink,
}

/// What went wrong, in a mat's `Error` frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A cell's reader (with a cell) or the whole mat (without) failed.
    SensorFault,
    /// A cell holds tags the mat cannot put in order, so it cannot say
    /// which card is on top. The cell reads `Unreadable` until it can.
    TwoTags,
    /// The mat lost readings or frames of its own (a queue overflowed):
    /// the host must ask for a full scan.
    BufferOverrun,
    /// The mat received a host frame it could not decode (bad COBS or CRC,
    /// oversized, unknown type, bad length), or noticed a gap in the host's
    /// sequence numbers: the host should send its LED state and any pending
    /// request again.
    HostFrameLost,
    /// A well-formed host request the mat cannot carry out: an LED entry for
    /// a cell off the mat (with that cell), or LEDs on a mat without them.
    BadRequest,
}

/// A list of at most `CAP` items, stored inline: no allocator needed.
///
/// Equality, hashing and `Debug` look at the items only, never at the
/// unused slots.
#[derive(Clone, Copy)]
pub struct FixedVec<T, const CAP: usize> {
    items: [T; CAP],
    len: usize,
}

/// Pushing into a full [`FixedVec`], or building one from too many items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapacityError;

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("too many items for a fixed-capacity list")
    }
}

impl core::error::Error for CapacityError {}

impl<T: Copy + Default, const CAP: usize> FixedVec<T, CAP> {
    /// How many items it can hold.
    pub const CAPACITY: usize = CAP;

    /// An empty list.
    pub fn new() -> Self {
        FixedVec {
            items: [T::default(); CAP],
            len: 0,
        }
    }

    /// A list of `items`, or an error when there are more than `CAP`.
    pub fn from_slice(items: &[T]) -> Result<Self, CapacityError> {
        let mut list = Self::new();
        list.items
            .get_mut(..items.len())
            .ok_or(CapacityError)?
            .copy_from_slice(items);
        list.len = items.len();
        Ok(list)
    }

    /// Appends `item`, or says the list is full.
    pub fn push(&mut self, item: T) -> Result<(), CapacityError> {
        let slot = self.items.get_mut(self.len).ok_or(CapacityError)?;
        *slot = item;
        self.len += 1;
        Ok(())
    }

    /// Whether no more items fit.
    pub fn is_full(&self) -> bool {
        self.len == CAP
    }
}

impl<T, const CAP: usize> FixedVec<T, CAP> {
    /// The items.
    pub fn as_slice(&self) -> &[T] {
        // len ≤ CAP always: only `push` and `from_slice` raise it, checked.
        self.items.get(..self.len).unwrap_or(&[])
    }
}

impl<T: Copy + Default, const CAP: usize> Default for FixedVec<T, CAP> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const CAP: usize> Deref for FixedVec<T, CAP> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: PartialEq, const CAP: usize> PartialEq for FixedVec<T, CAP> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq, const CAP: usize> Eq for FixedVec<T, CAP> {}

impl<T: core::hash::Hash, const CAP: usize> core::hash::Hash for FixedVec<T, CAP> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T: fmt::Debug, const CAP: usize> fmt::Debug for FixedVec<T, CAP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a, T, const CAP: usize> IntoIterator for &'a FixedVec<T, CAP> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Copy + Default, const CAP: usize> TryFrom<&[T]> for FixedVec<T, CAP> {
    type Error = CapacityError;
    fn try_from(items: &[T]) -> Result<Self, CapacityError> {
        Self::from_slice(items)
    }
}
