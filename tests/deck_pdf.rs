//! `arbiter deck print`: the PDF read back with a PDF reader, as a print
//! dialog would read it. Every page is the paper asked for; every card is
//! placed at 63 × 88 mm from a 300 dpi picture; the whole deck is there,
//! with a sheet of backs; the sheet says to print at 100%.

use std::path::PathBuf;
use std::process::Command;

use lopdf::content::Content;
use lopdf::{Document, Object};

const PT_PER_MM: f32 = 72.0 / 25.4;

fn num(o: &Object) -> f32 {
    match o {
        Object::Integer(i) => *i as f32,
        Object::Real(r) => *r,
        other => panic!("not a number: {other:?}"),
    }
}

/// What a page holds: its size in mm, the cards placed on it (their size
/// in mm and the picture's pixels), and its text.
struct Page {
    size_mm: (f32, f32),
    cards: Vec<((f32, f32), (i64, i64))>,
    text: String,
}

fn print(args: &[&str], name: &str) -> Vec<Page> {
    let dir = std::env::temp_dir().join(format!("arbiter-deck-pdf-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out: PathBuf = dir.join(name);
    let run = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["deck", "print", "--out", out.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("print at 100%"), "{said}");
    let doc = Document::load(&out).expect("a PDF a reader opens");
    let _ = std::fs::remove_dir_all(&dir);
    doc.get_pages()
        .values()
        .map(|&id| {
            let dict = doc.get_object(id).unwrap().as_dict().unwrap();
            let mb = dict.get(b"MediaBox").unwrap().as_array().unwrap();
            let size_mm = (
                (num(&mb[2]) - num(&mb[0])) / PT_PER_MM,
                (num(&mb[3]) - num(&mb[1])) / PT_PER_MM,
            );
            let images = doc.get_page_images(id).unwrap();
            let content = Content::decode(&doc.get_page_content(id)).unwrap();
            let (mut cm, mut cards, mut text) = ((0.0, 0.0), Vec::new(), String::new());
            for op in &content.operations {
                match op.operator.as_str() {
                    "cm" => cm = (num(&op.operands[0]), num(&op.operands[3])),
                    "Do" => {
                        let name = op.operands[0].as_name().unwrap();
                        let img = images
                            .iter()
                            .find(|i| {
                                let xo = dict
                                    .get(b"Resources")
                                    .and_then(Object::as_dict)
                                    .and_then(|r| r.get(b"XObject"))
                                    .and_then(Object::as_dict)
                                    .and_then(|x| x.get(name))
                                    .and_then(Object::as_reference)
                                    .unwrap();
                                i.id == xo
                            })
                            .expect("the name is an image on the page");
                        cards.push((
                            (cm.0 / PT_PER_MM, cm.1 / PT_PER_MM),
                            (img.width, img.height),
                        ));
                    }
                    "Tj" => {
                        text += &String::from_utf8_lossy(op.operands[0].as_str().unwrap());
                        text.push('\n');
                    }
                    _ => {}
                }
            }
            Page {
                size_mm,
                cards,
                text,
            }
        })
        .collect()
}

fn check(pages: &[Page], paper_mm: (f32, f32), per_sheet: usize, deck: usize) {
    let close = |a: f32, b: f32| (a - b).abs() < 0.05;
    for (n, p) in pages.iter().enumerate() {
        assert!(
            close(p.size_mm.0, paper_mm.0) && close(p.size_mm.1, paper_mm.1),
            "page {n}: {:?} mm, not {paper_mm:?}",
            p.size_mm
        );
        assert!(p.text.contains("PRINT AT 100%"), "page {n}: {}", p.text);
        assert!(p.text.contains("50 mm"), "page {n}: {}", p.text);
        for &((w, h), px) in &p.cards {
            assert!(
                close(w, 63.0) && close(h, 88.0),
                "page {n}: a card {w} x {h} mm"
            );
            // 63 mm at 300 dpi.
            assert_eq!(px, (744, 1039), "page {n}");
        }
        assert!(p.cards.len() <= per_sheet, "page {n}");
    }
    let faces: usize = pages[..pages.len() - 1].iter().map(|p| p.cards.len()).sum();
    assert_eq!(faces, deck, "every card of the deck, once");
    let backs = pages.last().unwrap();
    assert_eq!(backs.cards.len(), per_sheet, "a full sheet of backs");
    assert!(backs.text.contains("backs"), "{}", backs.text);
}

#[test]
fn the_deck_prints_at_true_size_on_a4() {
    check(&print(&[], "a4.pdf"), (210.0, 297.0), 9, 64);
}

#[test]
fn the_deck_prints_at_true_size_on_us_letter_turned() {
    check(
        &print(&["--paper", "letter"], "letter.pdf"),
        (279.4, 215.9),
        8,
        64,
    );
}

#[test]
fn the_enochian_armies_print_too() {
    check(
        &print(&["--enochian"], "enochian.pdf"),
        (210.0, 297.0),
        9,
        60,
    );
}

#[test]
fn a_pdf_that_cannot_be_written_says_where() {
    let run = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["deck", "print", "--out", "/nonexistent/dir/deck.pdf"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("/nonexistent/dir/deck.pdf"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
