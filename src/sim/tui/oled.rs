//! The OLED's pixels as terminal text: a copy of the SSD1306 model's
//! framebuffer turned into block characters, two pixel rows to a cell
//! (cells are about twice as tall as wide, so the pixels come out square and
//! the face looks as it does on the Pi), or into Braille dots, two by four
//! to a cell, when the terminal is too small for that.

use crate::models::ssd1306::{HEIGHT, WIDTH};

/// The panel's pixels, one bit each: row `y`'s bit `x` is lit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pixels {
    rows: [u128; HEIGHT],
}

impl Default for Pixels {
    fn default() -> Pixels {
        Pixels { rows: [0; HEIGHT] }
    }
}

impl Pixels {
    /// The pixels `lit(x, y)` says are lit.
    pub fn from_fn(lit: impl Fn(usize, usize) -> bool) -> Pixels {
        let mut rows = [0u128; HEIGHT];
        for (y, row) in rows.iter_mut().enumerate() {
            for x in 0..WIDTH {
                if lit(x, y) {
                    *row |= 1 << x;
                }
            }
        }
        Pixels { rows }
    }

    /// Whether the pixel at (`x`, `y`) is lit; outside the panel, none is.
    pub fn get(&self, x: usize, y: usize) -> bool {
        x < WIDTH && y < HEIGHT && self.rows[y] >> x & 1 == 1
    }

    /// Whether no pixel is lit (the panel is off or blank).
    #[cfg(test)]
    pub fn is_dark(&self) -> bool {
        self.rows.iter().all(|row| *row == 0)
    }

    /// The panel as `HEIGHT / 2` lines of `WIDTH` characters: `▀` the upper
    /// pixel lit, `▄` the lower, `█` both, a space neither.
    pub fn half_blocks(&self) -> Vec<String> {
        (0..HEIGHT / 2)
            .map(|row| {
                (0..WIDTH)
                    .map(|x| match (self.get(x, 2 * row), self.get(x, 2 * row + 1)) {
                        (true, true) => '█',
                        (true, false) => '▀',
                        (false, true) => '▄',
                        (false, false) => ' ',
                    })
                    .collect()
            })
            .collect()
    }

    /// The panel as `HEIGHT / 4` lines of `WIDTH / 2` Braille characters,
    /// each cell two pixels wide and four high (a blank cell a space).
    pub fn braille(&self) -> Vec<String> {
        // Unicode's dot numbering: bits 0-2 and 6 down the left column,
        // 3-5 and 7 down the right.
        const DOTS: [[u32; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
        (0..HEIGHT / 4)
            .map(|row| {
                (0..WIDTH / 2)
                    .map(|col| {
                        let mut bits = 0;
                        for (dx, column) in DOTS.iter().enumerate() {
                            for (dy, dot) in column.iter().enumerate() {
                                if self.get(2 * col + dx, 4 * row + dy) {
                                    bits |= dot;
                                }
                            }
                        }
                        // A blank cell as a space, so that copies of the
                        // screen trim like text.
                        if bits == 0 {
                            ' '
                        } else {
                            char::from_u32(0x2800 + bits).unwrap_or(' ')
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_pixel_rows_make_one_line_of_half_blocks() {
        // Column 0: both lit; 1: upper; 2: lower; 3: neither; 127 both on
        // the last pair of rows.
        let pixels = Pixels::from_fn(|x, y| {
            matches!(
                (x, y),
                (0, 0) | (0, 1) | (1, 0) | (2, 1) | (127, 62) | (127, 63)
            )
        });
        let lines = pixels.half_blocks();
        assert_eq!(lines.len(), 32);
        assert!(lines.iter().all(|l| l.chars().count() == 128));
        assert!(lines[0].starts_with("█▀▄ "), "{:?}", &lines[0][..12]);
        assert_eq!(lines[0].chars().filter(|c| *c != ' ').count(), 3);
        assert!(lines[31].ends_with('█'));
        assert!(lines[1..31].iter().all(|l| l.trim().is_empty()));
    }

    #[test]
    fn a_lit_rectangle_is_solid_blocks_with_half_edges() {
        // Rows 3..=8 lit across columns 10..20: rows pair up as (2,3)
        // lower half, (4,5) and (6,7) full, (8,9) upper half.
        let pixels = Pixels::from_fn(|x, y| (10..20).contains(&x) && (3..=8).contains(&y));
        let lines = pixels.half_blocks();
        let cell = |line: usize, x: usize| lines[line].chars().nth(x).unwrap();
        assert_eq!(cell(1, 10), '▄');
        assert_eq!(cell(2, 15), '█');
        assert_eq!(cell(3, 19), '█');
        assert_eq!(cell(4, 12), '▀');
        assert_eq!(cell(2, 9), ' ');
        assert_eq!(cell(2, 20), ' ');
    }

    #[test]
    fn braille_packs_two_by_four() {
        let pixels = Pixels::from_fn(|x, y| (x, y) == (0, 0) || (x, y) == (1, 3) || x >= 126);
        let lines = pixels.braille();
        assert_eq!(lines.len(), 16);
        assert!(lines.iter().all(|l| l.chars().count() == 64));
        assert_eq!(lines[0].chars().next(), Some('\u{2881}'), "dots 1 and 8");
        assert_eq!(lines[5].chars().last(), Some('\u{28ff}'), "all eight dots");
        assert_eq!(lines[1].chars().next(), Some(' '), "a blank cell");
    }

    #[test]
    fn pixels_outside_the_panel_are_dark() {
        let pixels = Pixels::from_fn(|_, _| true);
        assert!(pixels.get(127, 63));
        assert!(!pixels.get(128, 0));
        assert!(!pixels.get(0, 64));
        assert!(!pixels.is_dark());
        assert!(Pixels::default().is_dark());
    }
}
