//! Drawing the app: a function of its state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::board::BoardView;
use super::{App, Banner, Health, Source};
use crate::event::{EventBody, FlagKind};
use crate::games::Panel;
use crate::table::Colour;

pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let side_w = if area.width >= 140 { 56 } else { 40 }.min(area.width / 2);
    let [left, right] =
        Layout::horizontal([Constraint::Min(20), Constraint::Length(side_w)]).areas(main);

    draw_board(app, frame, left);
    let panel = app.referee.panel();
    let players_h = (panel.players.len() as u16) * 3 + panel.notes.len() as u16 + 2;
    let flags_h = flags_height(app, right.width);
    let [players, flags, log] = Layout::vertical([
        Constraint::Length(players_h),
        Constraint::Length(flags_h),
        Constraint::Min(3),
    ])
    .areas(right);
    draw_players(&panel, frame, players);
    draw_flags(app, frame, flags);
    draw_log(app, frame, log);
    draw_status(app, frame, status);
    if app.help {
        draw_help(app, frame, area);
    }
    if app.confirm_quit {
        draw_confirm(frame, area);
    }
}

fn colour_style(c: Colour) -> Style {
    match c {
        Colour::White => Style::new().fg(Color::White),
        Colour::Black => Style::new().fg(Color::Gray),
        Colour::Red => Style::new().fg(Color::LightRed),
        Colour::Blue => Style::new().fg(Color::LightBlue),
        Colour::Yellow => Style::new().fg(Color::Yellow),
    }
    .add_modifier(Modifier::BOLD)
}

fn draw_board(app: &App, frame: &mut Frame, area: Rect) {
    let title = format!(
        " arbiter · {} · {} ",
        game_title(&app.game),
        app.players.join(" vs ")
    );
    let block = Block::bordered().title(title.bold());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let flagged: Vec<_> = app
        .open_flags()
        .iter()
        .flat_map(|f| f.cells.iter().copied())
        .collect();
    let attackers: Vec<_> = app
        .banners
        .iter()
        .flat_map(|b| match b {
            Banner::Check { attackers, .. } => attackers.clone(),
            _ => vec![],
        })
        .collect();
    let table = app
        .observed
        .as_ref()
        .unwrap_or(app.referee.expected_table());
    let (cursor, marked) = match &app.source {
        Source::Mock(m) => (Some(m.cursor()), m.marked()),
        Source::Script(_) | Source::Live(_) => (None, None),
    };
    frame.render_widget(
        BoardView {
            table,
            flagged: &flagged,
            last_action: &app.last_action,
            attackers: &attackers,
            cursor,
            marked,
        },
        inner,
    );
}

fn game_title(name: &str) -> &str {
    match name {
        "enprise" => "En Prise",
        "doublecross" => "DoubleCross",
        "twelve" => "Twelve",
        "enochian" => "Enochian Chess",
        other => other,
    }
}

fn draw_players(panel: &Panel, frame: &mut Frame, area: Rect) {
    let mut lines: Vec<Line> = Vec::new();
    for p in &panel.players {
        let marker = if p.to_move { "▶ " } else { "  " };
        let mut head = vec![
            Span::raw(marker),
            Span::styled(title_of(p.colour), colour_style(p.colour)),
        ];
        if p.to_move {
            head.push(Span::raw("  to act").italic());
        }
        if p.in_check {
            head.push(Span::styled(
                "  IN CHECK",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ));
        }
        if p.out {
            head.push(Span::raw("  out").dim());
        }
        lines.push(Line::from(head));
        // The Battleplan: the next card stands out, the rest follow.
        let mut plan = vec![Span::raw("    ")];
        match p.plan.split_first() {
            Some((next, rest)) => {
                plan.push(Span::styled(
                    format!("[{next}]"),
                    Style::new().reversed().bold(),
                ));
                let letters: Vec<String> =
                    rest.iter().map(|c| c.piece.letter().to_string()).collect();
                let count = format!("  {} left", p.plan.len());
                // Spaced letters when they fit, packed in fives when not.
                let room = area.width.saturating_sub(2 + 4 + 5) as usize;
                let spaced = format!(" {}", letters.join(" "));
                let text = if spaced.len() + count.len() <= room {
                    spaced
                } else {
                    let packed: Vec<String> = letters.chunks(5).map(|c| c.concat()).collect();
                    format!(" {}", packed.join(" "))
                };
                plan.push(Span::raw(text));
                plan.push(Span::raw(count).dim());
            }
            None => plan.push(Span::raw("Battleplan empty: moves only").dim()),
        }
        lines.push(Line::from(plan));
        lines.push(Line::from(format!("    {}", p.notes.join("; "))).dim());
    }
    for n in &panel.notes {
        lines.push(Line::from(format!("  {n}")));
    }
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Players ")),
        area,
    );
}

fn title_of(c: Colour) -> &'static str {
    c.title()
}

/// What the flags panel says, as lines to wrap.
fn flag_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for b in &app.banners {
        let (text, style) = match b {
            Banner::Check { player, attackers } => (
                format!(
                    "CHECK: {}'s king is attacked from {}",
                    super::title(player),
                    attackers
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ),
            Banner::Checkmate { player } => (
                format!("CHECKMATE: {}", super::title(player)),
                Style::new().fg(Color::White).bg(Color::Red).bold(),
            ),
            Banner::GameOver { text } => (
                text.clone(),
                Style::new().fg(Color::Black).bg(Color::Green).bold(),
            ),
        };
        lines.push(Line::styled(text, style));
    }
    for f in app.open_flags() {
        lines.push(Line::from(vec![
            Span::styled(
                format!("! {}", flag_title(f.kind)),
                Style::new().fg(Color::White).bg(Color::Red).bold(),
            ),
            Span::raw(format!("  {}", f.rule)).dim(),
        ]));
        lines.push(Line::from(f.message.clone()));
    }
    if app.open_flags().is_empty() && app.banners.is_empty() {
        lines.push(Line::styled(
            "The table matches the game.",
            Style::new().fg(Color::Green),
        ));
    }
    lines
}

fn flags_height(app: &App, width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = flag_lines(app)
        .iter()
        .map(|l| l.width().div_ceil(inner).max(1))
        .sum();
    (rows as u16 + 2).clamp(3, 14)
}

fn flag_title(kind: FlagKind) -> &'static str {
    match kind {
        FlagKind::MissedSwap => "Missed SWAP",
        FlagKind::MissedFlip => "Missed FLIP",
        FlagKind::MissedEliminationFlip => "Cards to turn face-down",
        FlagKind::IllegalPlacement => "Illegal placement",
        FlagKind::IllegalMove => "Illegal move",
        FlagKind::WrongCard => "Wrong card",
        FlagKind::WrongPlayer => "Not your turn",
        FlagKind::KingRequired => "King required",
        FlagKind::Unexplained => "Unexplained change",
        FlagKind::Unreadable => "Cannot read the table",
        other => other.as_str(),
    }
}

fn draw_flags(app: &App, frame: &mut Frame, area: Rect) {
    let title = if app.open_flags().is_empty() {
        " Flags "
    } else {
        " Flags: mend the table "
    };
    frame.render_widget(
        Paragraph::new(flag_lines(app))
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(title)),
        area,
    );
}

fn draw_log(app: &App, frame: &mut Frame, area: Rect) {
    let rows = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line> = app
        .log
        .iter()
        .filter(|e| !matches!(e.body, EventBody::GameStarted { .. }))
        .rev()
        .take(rows)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|e| {
            let text = e.to_string();
            let text = text.trim_start_matches("step").trim_start();
            let style = match e.body {
                EventBody::Flag(_) => Style::new().fg(Color::LightRed),
                EventBody::Cleared { .. } => Style::new().fg(Color::Green),
                EventBody::Check { .. } | EventBody::Checkmate { .. } => {
                    Style::new().fg(Color::Yellow)
                }
                _ => Style::new(),
            };
            Line::styled(text.to_string(), style)
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Log ")),
        area,
    );
}

fn draw_status(app: &App, frame: &mut Frame, area: Rect) {
    let (health, style) = match &app.health {
        Health::Connected => ("● connected".to_string(), Style::new().fg(Color::Green)),
        Health::Busy => (
            "◌ busy: hands over the table".to_string(),
            Style::new().fg(Color::Yellow),
        ),
        Health::Unreadable => ("? unreadable".to_string(), Style::new().fg(Color::LightRed)),
        Health::Reconnecting(why) => (
            format!("↻ reconnecting ({why})"),
            Style::new().fg(Color::Yellow),
        ),
        Health::Ended => (
            "■ input ended".to_string(),
            Style::new().fg(Color::DarkGray),
        ),
    };
    let source = match &app.source {
        Source::Script(s) => {
            let (done, all) = s.position();
            let keys = if s.ended() {
                "played out"
            } else if s.timed() {
                "stepping by itself"
            } else {
                "space: next step"
            };
            format!("script {} · step {done}/{all} · {keys}", app.source_name)
        }
        Source::Mock(m) => {
            let next = app.referee.next_card();
            let card = m
                .card_to_place(next)
                .map(|c| c.to_string())
                .unwrap_or_else(|| "-".into());
            format!("mock table · cursor {} · placing {card}", m.cursor())
        }
        Source::Live(l) => l.name.clone(),
    };
    let mut spans = vec![
        Span::styled(health, style),
        Span::raw(format!("  {source}")),
    ];
    if let Some(h) = &app.hint {
        spans.push(Span::styled(
            format!("  {h}"),
            Style::new().fg(Color::Yellow),
        ));
    }
    spans.push(Span::raw("  ?: help  q: quit").dim());
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn popup(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_help(app: &App, frame: &mut Frame, area: Rect) {
    let mut lines = vec![
        Line::from("The referee watches the table and flags what the rules forbid.").italic(),
        Line::from(""),
        Line::from("  ?        this help (any key closes it)"),
        Line::from("  q        quit (asks first mid-game; the journal keeps the game)"),
    ];
    match &app.source {
        Source::Script(_) => {
            lines.push(Line::from("  space n  next step of the script"));
        }
        Source::Live(_) => {}
        Source::Mock(_) => {
            lines.push(Line::from(""));
            lines.push(Line::from("Mock table").bold());
            for (k, what) in crate::input::mock::HELP {
                lines.push(Line::from(format!("  {k:<10} {what}")));
            }
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from("On the board").bold());
    lines.push(Line::from(
        "  ! red    a flagged cell: look here to mend the table",
    ));
    lines.push(Line::from("  > bold   the last action"));
    lines.push(Line::from("  + purple a piece giving check"));
    lines.push(Line::from("  ░░       a face-down card (a vacant square)"));
    let h = lines.len() as u16 + 2;
    let r = popup(area, 72, h);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Help ")),
        r,
    );
}

fn draw_confirm(frame: &mut Frame, area: Rect) {
    let r = popup(area, 56, 5);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from("The game is not over. Quit?"),
            Line::from("The journal keeps it: arbiter play --resume").dim(),
            Line::from("y: quit    any other key: stay"),
        ])
        .block(Block::bordered().title(" Quit ")),
        r,
    );
}
