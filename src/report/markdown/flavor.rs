//! The two Markdowns a comment is written in, and how each keeps a repository's text
//! inert: GitHub's and GitLab's (GFM: tables, and the HTML `<details>` and `<code>` they
//! allow), and Bitbucket's, which shows every HTML tag as text and whose Cloud renderer
//! is not CommonMark: there, only what both renderer families read the same is used
//! (lists, code spans, emphasis, links, numeric character references).

/// The first line of every GFM comment, and how the poster finds its own comment to edit
/// it: an HTML comment, which GitHub and GitLab do not show.
pub(crate) const MARKER: &str = "<!-- override-guard review -->";

/// The same for Bitbucket, which would show an HTML comment: a link reference definition,
/// which Markdown renderers read and do not show.
pub(crate) const BITBUCKET_MARKER: &str = "[//]: # (override-guard review)";

/// Whose Markdown a comment is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Flavor {
    /// GitHub's and GitLab's: tables, and the diff folded in `<details>`.
    #[default]
    Gfm,
    /// Bitbucket's (Cloud and Data Center), which shows HTML as text: lists instead of
    /// tables, code spans, the diff unfolded.
    Bitbucket,
}

impl Flavor {
    pub(crate) fn marker(self) -> &'static str {
        match self {
            Flavor::Gfm => MARKER,
            Flavor::Bitbucket => BITBUCKET_MARKER,
        }
    }

    /// The longest comment the host takes, in characters: GitHub's 65,536 (GitLab takes
    /// a million), Bitbucket's less than 32,768.
    pub(crate) fn limit(self) -> usize {
        match self {
            Flavor::Gfm => 65_536,
            Flavor::Bitbucket => 32_767,
        }
    }

    /// Does this Markdown have tables? Bitbucket Cloud's split a row at a pipe inside a
    /// code span, which GFM's require escaped: no one row reads the same in both.
    pub(crate) fn tables(self) -> bool {
        self == Flavor::Gfm
    }

    /// Text from a repository as Markdown text: each character that starts inline markup
    /// (emphasis, code, links and images, HTML, table cells, strike-through, GitLab's
    /// math) is read as the character itself; `&` becomes `&amp;` so that no entity is
    /// read; a line break is a space, so that the text stays in its list item or cell. It
    /// never starts a line, so block markup cannot begin. GFM: a backslash escape, as
    /// CommonMark reads it. Bitbucket: a numeric character reference, which CommonMark and
    /// the Markdown.pl family both read as the character (Python-Markdown, for one, does
    /// not know `\<` or `\~`).
    pub(crate) fn text(self, s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 8);
        let chars: Vec<char> = s.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            match c {
                '_' if inside_word(&chars, i) => out.push('_'),
                '&' => out.push_str("&amp;"),
                '\n' | '\r' | '\t' => out.push(' '),
                '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '!' | '$' => {
                    match self {
                        Flavor::Gfm => {
                            out.push('\\');
                            out.push(c);
                        }
                        Flavor::Bitbucket => out.push_str(&format!("&#{};", c as u32)),
                    }
                }
                '#' if self == Flavor::Bitbucket => out.push_str("&#35;"),
                c if c.is_control() => out.push(' '),
                c => out.push(c),
            }
        }
        out
    }

    /// A value as inline code, cut at `max` characters, on one line (a line break is
    /// `\n`, another control character its escape).
    ///
    /// GFM: an HTML `<code>` element, which survives a table. Markdown goes on inside it
    /// (cmark-gfm reads `HEAD~1 … HEAD~2` there as strike-through), so every character
    /// that starts markup is an entity, read as the character itself: HTML's own
    /// (`<script>` is text), the pipe (a table row is split at a raw `|`), the backtick,
    /// emphasis, strike-through, links and math.
    ///
    /// Bitbucket: a code span, whose content every Markdown takes as it is; its fence is
    /// longer than any run of backticks inside, and a space pads a backtick at either end.
    pub(crate) fn code(self, s: &str, max: usize) -> String {
        let chars: Vec<char> = s.chars().take(max + 1).collect();
        let mut out = String::new();
        for (i, &c) in chars.iter().enumerate() {
            if i == max {
                out.push('…');
                break;
            }
            match (self, c) {
                (_, '\n') => out.push_str("\\n"),
                (_, c) if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
                (Flavor::Bitbucket, c) => out.push(c),
                (Flavor::Gfm, '_') if inside_word(&chars, i) => out.push('_'),
                (Flavor::Gfm, '&') => out.push_str("&amp;"),
                (Flavor::Gfm, '<') => out.push_str("&lt;"),
                (Flavor::Gfm, '>') => out.push_str("&gt;"),
                (Flavor::Gfm, '"') => out.push_str("&quot;"),
                (Flavor::Gfm, '|' | '`' | '\\' | '*' | '_' | '~' | '[' | ']' | '!' | '$') => {
                    out.push_str(&format!("&#{};", c as u32))
                }
                (Flavor::Gfm, c) => out.push(c),
            }
        }
        match self {
            Flavor::Gfm => format!("<code>{out}</code>"),
            Flavor::Bitbucket => {
                let fence = "`".repeat(longest_run(&out, '`') + 1);
                let pad = if out.starts_with('`') || out.ends_with('`') || out.trim().is_empty() {
                    " "
                } else {
                    ""
                };
                format!("{fence}{pad}{out}{pad}{fence}")
            }
        }
    }

    /// The anchor of a line in the host's file view: `#L12` on GitHub and GitLab,
    /// `#lines-12` on Bitbucket Cloud.
    pub(crate) fn line_anchor(self, n: usize) -> String {
        match self {
            Flavor::Gfm => format!("#L{n}"),
            Flavor::Bitbucket => format!("#lines-{n}"),
        }
    }

    /// `body` under `title`: folded in `<details>` where the host allows it, else after a
    /// bold line.
    pub(crate) fn fold(self, title: &str, body: &str) -> String {
        match self {
            Flavor::Gfm => {
                format!("\n<details><summary>{title}</summary>\n\n{body}\n</details>\n\n")
            }
            Flavor::Bitbucket => format!("\n**{title}**\n\n{body}\n"),
        }
    }
}

/// Is the character at `i` between two letters or digits? An underscore there cannot
/// open or close emphasis (CommonMark's flanking rules), so `aws_instance` stays as it is.
fn inside_word(chars: &[char], i: usize) -> bool {
    let word = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphanumeric());
    word(i.checked_sub(1)) && word(Some(i + 1))
}

fn longest_run(s: &str, of: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == of { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// A fenced code block for `body`, its fence longer than any run of backticks in it, so
/// that no line of the body can close it.
pub(crate) fn fenced(info: &str, body: &str) -> String {
    let fence = "`".repeat((longest_run(body, '`') + 1).max(3));
    let mut out = format!("{fence}{info}\n");
    for line in body.lines() {
        out.push_str(&line.replace(|c: char| c.is_control() && c != '\t', "\u{fffd}"));
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
    out
}
