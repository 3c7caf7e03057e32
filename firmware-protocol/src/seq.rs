//! Noticing lost frames from their sequence numbers.

/// What a received frame's sequence number says about the frames before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeqStatus {
    /// The number expected (or the first frame seen): nothing was lost.
    InOrder,
    /// `missed` frames were lost before this one: ask for a full scan.
    Gap {
        /// How many numbers were skipped (1 to 32 767).
        missed: u16,
    },
    /// The same number as the previous frame: a duplicate. The protocol
    /// never repeats a frame, but every message is idempotent, so a host
    /// may ignore it.
    Repeat,
    /// A number behind the previous frame's: the sender's counter went back
    /// (it restarted without a `Hello`). Ask for a full scan.
    Backward {
        /// How far behind the previous frame's number (1 to 32 767).
        by: u16,
    },
}

impl SeqStatus {
    /// Whether the receiver may have missed state and must resynchronise:
    /// the host asks the mat for a full scan.
    pub fn needs_rescan(self) -> bool {
        matches!(self, SeqStatus::Gap { .. } | SeqStatus::Backward { .. })
    }
}

/// Follows a peer's sequence numbers: feed it the number of every frame
/// received (and decoded); it says whether any were lost.
///
/// Numbers are 16-bit and wrap: 65 535 is followed by 0. A number up to
/// 32 767 ahead of the expected one is a [`SeqStatus::Gap`]; one behind the
/// previous is [`SeqStatus::Backward`]. Whatever it says, it then expects
/// the number after the one it was fed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SequenceTracker {
    expected: Option<u16>,
}

impl SequenceTracker {
    /// A tracker that has seen no frame: the first is [`SeqStatus::InOrder`].
    pub const fn new() -> SequenceTracker {
        SequenceTracker { expected: None }
    }

    /// Forgets the past: the next frame is taken as in order. The host
    /// resets on every `Hello` from the mat.
    pub fn reset(&mut self) {
        self.expected = None;
    }

    /// The number the next frame should carry, once a frame was seen.
    pub fn expected(&self) -> Option<u16> {
        self.expected
    }

    /// Takes the sequence number of a received frame.
    pub fn observe(&mut self, seq: u16) -> SeqStatus {
        let status = match self.expected {
            None => SeqStatus::InOrder,
            Some(expected) => match seq.wrapping_sub(expected) {
                0 => SeqStatus::InOrder,
                u16::MAX => SeqStatus::Repeat,
                ahead @ 1..0x8000 => SeqStatus::Gap { missed: ahead },
                _ => SeqStatus::Backward {
                    by: expected.wrapping_sub(1).wrapping_sub(seq),
                },
            },
        };
        self.expected = Some(seq.wrapping_add(1));
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_gap_repeat_backward_and_wrapping() {
        let mut t = SequenceTracker::new();
        assert_eq!(t.observe(65_534), SeqStatus::InOrder);
        assert_eq!(t.observe(65_535), SeqStatus::InOrder);
        assert_eq!(t.observe(0), SeqStatus::InOrder);
        assert_eq!(t.observe(0), SeqStatus::Repeat);
        assert_eq!(t.observe(3), SeqStatus::Gap { missed: 2 });
        assert_eq!(t.observe(65_535), SeqStatus::Backward { by: 4 });
        assert_eq!(t.observe(0x7fff), SeqStatus::Gap { missed: 0x7fff });
        assert_eq!(t.observe(0), SeqStatus::Backward { by: 0x7fff });
        assert_eq!(t.observe(0x8001), SeqStatus::Backward { by: 0x7fff });
        assert!(SeqStatus::Gap { missed: 1 }.needs_rescan());
        assert!(SeqStatus::Backward { by: 1 }.needs_rescan());
        assert!(!SeqStatus::Repeat.needs_rescan());
        assert!(!SeqStatus::InOrder.needs_rescan());
        t.reset();
        assert_eq!(t.expected(), None);
        assert_eq!(t.observe(9), SeqStatus::InOrder);
        assert_eq!(t.expected(), Some(10));
    }
}
