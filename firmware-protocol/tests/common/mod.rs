//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use firmware_protocol::{
    Blink, CellIndex, CellState, CellStates, Colour, DecodeError, ErrorKind, Face, Frame, Geometry,
    HostMessage, LedEntries, LedEntry, MatMessage, TagId,
};

pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn unhex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

pub const GEOMETRY: Geometry = Geometry {
    cols: 12,
    rows: 12,
    pitch_x_mm: 70,
    pitch_y_mm: 95,
};

/// The 7-byte NFC UID 04 A2 3B 4C 5D 6E 7F.
pub const UID7: TagId = TagId(0x0004_a23b_4c5d_6e7f);
/// The 4-byte NFC UID 11 22 33 44.
pub const UID4: TagId = TagId(0x1122_3344);

/// The test vectors of PROTOCOL.md: id, frame, bytes on the wire.
pub fn mat_vectors() -> Vec<(&'static str, Frame<MatMessage>, &'static str)> {
    vec![
        (
            "M1",
            Frame::new(
                0,
                MatMessage::Hello {
                    protocol: 1,
                    firmware: [1, 2, 3],
                    geometry: GEOMETRY,
                    leds: true,
                },
            ),
            "02 01 01 08 01 01 02 03 0c 0c 46 02 5f 06 01 8b 8b 9b df 00",
        ),
        (
            "M2",
            Frame::new(
                1,
                MatMessage::ScanBegin {
                    scan_id: 1,
                    cells: 144,
                },
            ),
            "03 02 01 02 01 02 90 05 24 f9 4b 9d 00",
        ),
        (
            "M3",
            Frame::new(
                2,
                MatMessage::ScanCells {
                    scan_id: 1,
                    first: 0,
                    states: CellStates::from_slice(&[
                        CellState::Empty,
                        CellState::Card {
                            tag: UID7,
                            face: Face::Up,
                        },
                        CellState::Card {
                            tag: UID4,
                            face: Face::Down,
                        },
                        CellState::Unreadable,
                    ])
                    .unwrap(),
                },
            ),
            "03 03 02 02 01 01 01 02 04 09 01 7f 6e 5d 4c 3b a2 04 06 02 44 33 22 11 01 01 01 06 03 1e f2 d7 0d 00",
        ),
        (
            "M4",
            Frame::new(11, MatMessage::ScanEnd { scan_id: 1 }),
            "03 04 0b 02 01 05 2d ba f3 22 00",
        ),
        (
            "M5",
            Frame::new(
                12,
                MatMessage::CellChange {
                    cell: CellIndex::new(3, 4),
                    state: CellState::Card {
                        tag: UID7,
                        face: Face::Down,
                    },
                },
            ),
            "03 05 0c 0b 03 04 02 7f 6e 5d 4c 3b a2 04 03 97 97 02 32 00",
        ),
        (
            "M6",
            Frame::new(
                13,
                MatMessage::CellChange {
                    cell: CellIndex::new(3, 4),
                    state: CellState::Empty,
                },
            ),
            "03 05 0d 03 03 04 05 c6 5b 78 b3 00",
        ),
        (
            "M7",
            Frame::new(14, MatMessage::Heartbeat { uptime_ms: 123_456 }),
            "03 06 0e 04 40 e2 01 05 94 e0 ca 9d 00",
        ),
        (
            "M8",
            Frame::new(
                15,
                MatMessage::Error {
                    kind: ErrorKind::TwoTags,
                    cell: Some(CellIndex::new(5, 6)),
                    detail: 0,
                },
            ),
            "03 07 0f 05 02 01 05 06 01 05 54 05 ac 50 00",
        ),
        (
            "M9",
            Frame::new(
                16,
                MatMessage::Error {
                    kind: ErrorKind::SensorFault,
                    cell: None,
                    detail: 0x0102,
                },
            ),
            "03 07 10 02 01 01 01 07 02 01 f9 77 ed c2 00",
        ),
        (
            "M10",
            Frame::new(65_535, MatMessage::Pong { nonce: 0xdead_beef }),
            "0c 08 ff ff ef be ad de b5 ca 59 ed 00",
        ),
        (
            "M11",
            Frame::new(
                0,
                MatMessage::Hello {
                    protocol: 2,
                    firmware: [1, 2, 3],
                    geometry: GEOMETRY,
                    leds: true,
                },
            ),
            "02 01 01 08 02 01 02 03 0c 0c 46 02 5f 06 01 39 e5 e5 63 00",
        ),
        (
            "M12",
            Frame::new(
                17,
                MatMessage::CellChange {
                    cell: CellIndex::new(3, 4),
                    state: CellState::Pair { tags: [UID7, UID4] },
                },
            ),
            "03 05 11 0b 03 04 04 7f 6e 5d 4c 3b a2 04 05 44 33 22 11 01 01 01 05 a6 9e 4c d9 00",
        ),
    ]
}

pub fn host_vectors() -> Vec<(&'static str, Frame<HostMessage>, &'static str)> {
    vec![
        (
            "H1",
            Frame::new(0, HostMessage::Hello { protocol: 1 }),
            "02 81 01 06 01 43 ab e9 35 00",
        ),
        (
            "H2",
            Frame::new(1, HostMessage::RequestScan),
            "03 82 01 05 43 1e 8e b7 00",
        ),
        (
            "H3",
            Frame::new(
                2,
                HostMessage::SetLeds {
                    leds: LedEntries::from_slice(&[
                        LedEntry {
                            cell: CellIndex::new(0, 0),
                            colour: Colour::rgb(255, 0, 0),
                            blink: Blink::Steady,
                        },
                        LedEntry {
                            cell: CellIndex::new(11, 11),
                            colour: Colour::rgb(0, 128, 255),
                            blink: Blink::Fast,
                        },
                    ])
                    .unwrap(),
                },
            ),
            "03 83 02 02 02 01 02 ff 01 01 03 0b 0b 08 80 ff 02 4a c8 92 b7 00",
        ),
        (
            "H4",
            Frame::new(3, HostMessage::ClearLeds),
            "03 84 03 05 ba d8 7a 41 00",
        ),
        (
            "H5",
            Frame::new(4, HostMessage::Ping { nonce: 1 }),
            "03 85 04 02 01 01 01 05 4f 10 03 ec 00",
        ),
        (
            "H6",
            Frame::new(0, HostMessage::Hello { protocol: 2 }),
            "02 81 01 06 02 b7 58 b9 26 00",
        ),
    ]
}

/// Which side decodes a rejected vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The host decodes it as a mat frame.
    Host,
    /// The mat decodes it as a host frame.
    Mat,
}

/// The rejected vectors of PROTOCOL.md: id, who decodes, bytes, the error.
pub fn rejected_vectors() -> Vec<(&'static str, Side, &'static str, DecodeError)> {
    vec![
        (
            "E1",
            Side::Host,
            "03 06 0e 04 40 e2 01 05 94 e0 ca 9c 00",
            DecodeError::BadCrc {
                expected: 0x9dca_e094,
                found: 0x9cca_e094,
            },
        ),
        (
            "E2",
            Side::Host,
            "02 01 01 08 03 01 02 03 0c 0c 46 02 5f 06 01 f8 12 94 f4 00",
            DecodeError::UnsupportedProtocol { protocol: 3 },
        ),
        (
            "E3",
            Side::Host,
            "02 09 01 05 c1 0f 74 fd 00",
            DecodeError::UnknownType(0x09),
        ),
        (
            "E4",
            Side::Host,
            "03 06 0e 08 40 e2 01 8c 6d 47 02 00",
            DecodeError::BadLength { ty: 0x06, len: 3 },
        ),
        (
            "E5",
            Side::Host,
            "02 06 01 01 00",
            DecodeError::TooShort { len: 3 },
        ),
        ("E6", Side::Host, "05 01 02 00", DecodeError::Cobs),
        (
            "E7",
            Side::Host,
            "03 05 0c 08 03 04 05 76 20 98 be 00",
            DecodeError::BadValue {
                ty: 0x05,
                field: "cell state",
            },
        ),
        (
            "E8",
            Side::Mat,
            "03 06 0e 04 40 e2 01 05 94 e0 ca 9d 00",
            DecodeError::UnknownType(0x06),
        ),
    ]
}
