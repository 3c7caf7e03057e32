//! The test vectors of PROTOCOL.md, asserted both ways: message → bytes and
//! bytes → message (or → the error, for the rejected ones). The document's
//! tables and these lists must hold the same vectors.

mod common;

use std::collections::BTreeMap;

use common::{Side, hex, host_vectors, mat_vectors, rejected_vectors, unhex};
use firmware_protocol::{
    HostDecoder, HostMessage, MAX_FRAME_LEN, MatDecoder, MatMessage, decode, encode,
};

#[test]
fn mat_vectors_encode_and_decode() {
    let mut buf = [0u8; MAX_FRAME_LEN];
    for (id, frame, bytes) in mat_vectors() {
        let n = encode(&frame, &mut buf).unwrap();
        assert_eq!(hex(&buf[..n]), bytes, "{id}: encoding");
        assert_eq!(
            decode::<MatMessage>(&unhex(bytes)),
            Ok(frame),
            "{id}: decoding"
        );
    }
}

#[test]
fn host_vectors_encode_and_decode() {
    let mut buf = [0u8; MAX_FRAME_LEN];
    for (id, frame, bytes) in host_vectors() {
        let n = encode(&frame, &mut buf).unwrap();
        assert_eq!(hex(&buf[..n]), bytes, "{id}: encoding");
        assert_eq!(
            decode::<HostMessage>(&unhex(bytes)),
            Ok(frame),
            "{id}: decoding"
        );
    }
}

#[test]
fn the_vectors_as_one_stream_decode_in_order() {
    let stream: Vec<u8> = mat_vectors().iter().flat_map(|v| unhex(v.2)).collect();
    let mut decoder = MatDecoder::new();
    let got: Vec<_> = decoder.feed(&stream).collect();
    let want: Vec<_> = mat_vectors().into_iter().map(|v| Ok(v.1)).collect();
    assert_eq!(got, want);

    let stream: Vec<u8> = host_vectors().iter().flat_map(|v| unhex(v.2)).collect();
    let mut decoder = HostDecoder::new();
    let got: Vec<_> = stream.iter().filter_map(|&b| decoder.push(b)).collect();
    let want: Vec<_> = host_vectors().into_iter().map(|v| Ok(v.1)).collect();
    assert_eq!(got, want);
}

#[test]
fn rejected_vectors_give_their_error_and_the_next_frame_decodes() {
    let (_, next, next_bytes) = mat_vectors().remove(0);
    for (id, side, bytes, error) in rejected_vectors() {
        let mut stream = unhex(bytes);
        match side {
            Side::Host => {
                assert_eq!(decode::<MatMessage>(&unhex(bytes)), Err(error), "{id}");
                stream.extend(unhex(next_bytes));
                let got: Vec<_> = MatDecoder::new().feed(&stream).collect();
                assert_eq!(got, [Err(error), Ok(next.clone())], "{id}");
            }
            Side::Mat => {
                assert_eq!(decode::<HostMessage>(&unhex(bytes)), Err(error), "{id}");
                let (_, next, next_bytes) = host_vectors().remove(0);
                stream.extend(unhex(next_bytes));
                let got: Vec<_> = HostDecoder::new().feed(&stream).collect();
                assert_eq!(got, [Err(error), Ok(next)], "{id}");
            }
        }
    }
}

/// The vector rows of PROTOCOL.md's tables: `| ID | … | `hex` |`.
fn documented_vectors() -> BTreeMap<String, String> {
    let doc = include_str!("../PROTOCOL.md");
    let mut rows = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, id, .., bytes, _] = cells.as_slice() else {
            continue;
        };
        let id_like = id.len() >= 2
            && id.starts_with(['M', 'H', 'E'])
            && id[1..].chars().all(|c| c.is_ascii_digit());
        if id_like {
            let bytes = bytes.trim_matches('`').to_string();
            assert!(
                rows.insert(id.to_string(), bytes).is_none(),
                "PROTOCOL.md lists vector {id} twice"
            );
        }
    }
    rows
}

#[test]
fn protocol_md_lists_exactly_these_vectors() {
    let mut ours = BTreeMap::new();
    for (id, _, bytes) in mat_vectors() {
        ours.insert(id.to_string(), bytes.to_string());
    }
    for (id, _, bytes) in host_vectors() {
        ours.insert(id.to_string(), bytes.to_string());
    }
    for (id, _, bytes, _) in rejected_vectors() {
        ours.insert(id.to_string(), bytes.to_string());
    }
    assert_eq!(documented_vectors(), ours);
}
