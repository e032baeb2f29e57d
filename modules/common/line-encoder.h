/*
 * Copyright (c) 2026 fastdest authors
 *
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the Free
 * Software Foundation; either version 2 of the License, or (at your option)
 * any later version.
 *
 * This program is distributed in the hope that it will be useful, but WITHOUT
 * ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
 * FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License for
 * more details.
 *
 * You should have received a copy of the GNU General Public License along
 * with this program; if not, see <https://www.gnu.org/licenses/>.
 */
#ifndef FASTDEST_LINE_ENCODER_H_INCLUDED
#define FASTDEST_LINE_ENCODER_H_INCLUDED

#include <glib.h>

typedef enum
{
  LINE_ENDING_LF,
  LINE_ENDING_CRLF,
  LINE_ENDING_CR,
  LINE_ENDING_NONE,
} LineEnding;

/* "lf", "crlf", "cr", "none" (case-insensitive) */
gboolean line_ending_parse(const gchar *name, LineEnding *ending);
const gchar *line_ending_name(LineEnding ending);

/*
 * Encodes UTF-8 text into an output charset.  The line ending and the BOM
 * are encoded once, at construction; converting appends straight into a
 * caller's GString with no allocation per call once the string has room.
 * Input that is not valid UTF-8, and characters the charset cannot carry, are
 * substituted (U+FFFD, or '?' where the charset cannot carry U+FFFD), never
 * dropped.  For UTF-8 output the text is passed through unchanged (as file()).
 */
typedef struct _LineEncoder LineEncoder;

/* charset: any iconv name, NULL means UTF-8; an unknown charset fails with an error naming it */
LineEncoder *line_encoder_new(const gchar *charset, LineEnding ending, GError **error);
void line_encoder_free(LineEncoder *self);

gboolean line_encoder_is_utf8(const LineEncoder *self);
const gchar *line_encoder_get_charset(const LineEncoder *self);
const guint8 *line_encoder_get_line_ending(const LineEncoder *self, gsize *len);
/*
 * The byte order mark to start a new file with: for charsets whose byte
 * order glibc picks itself ("UTF-16", "UTF-32") the BOM it would emit, which
 * matches the byte order of the converted text; otherwise U+FEFF in the
 * charset (UTF-8: EF BB BF, UTF-16LE: FF FE, ...); empty for charsets that
 * cannot carry U+FEFF (ISO-8859-2...).  Never part of converted text.
 */
const guint8 *line_encoder_get_bom(const LineEncoder *self, gsize *len);
/* TRUE when the text's byte order is only known from the BOM ("UTF-16", "UTF-32") */
gboolean line_encoder_bom_is_required(const LineEncoder *self);

/* convert len bytes of UTF-8 and append them to out */
void line_encoder_append_text(LineEncoder *self, const gchar *utf8, gsize len, GString *out);
/* append the encoded line ending to out */
void line_encoder_append_line_ending(const LineEncoder *self, GString *out);

/* how far back from the end of a file line_encoder_scan_tail() looks for a line end */
#define LINE_SCAN_WINDOW (1024 * 1024)
/* the most bytes line_encoder_end_unended() makes */
#define LINE_ENCODER_MAX_END 64

typedef enum
{
  LINE_SCAN_WHOLE,        /* the file ends in a line end (or the records are not lines: line-ending(none)) */
  LINE_SCAN_TORN,         /* a line cut short after the last whole one (a crash mid-write): cut at *valid_end */
  LINE_SCAN_UNENDED,      /* no line end in the last LINE_SCAN_WINDOW bytes: not a record cut short, keep it */
  LINE_SCAN_READ_ERROR,   /* errno set */
} LineScanResult;

/* Reads the end of fd's first `size` bytes: whether the file ends where a
 * line does.  A line end is the last code unit of the line ending (so "\n"
 * ends a line for crlf too), on a code unit boundary from the start of the
 * file (UTF-16/32 text cut at an odd byte is cut back to a whole unit). */
LineScanResult line_encoder_scan_tail(const LineEncoder *self, gint fd, off_t size, off_t *valid_end);
/* the bytes that end a file of `size` bytes that line_encoder_scan_tail()
 * found UNENDED: NULs up to the next code unit boundary, then the line
 * ending; their number */
gsize line_encoder_end_unended(const LineEncoder *self, off_t size, guint8 out[LINE_ENCODER_MAX_END]);

#define LINE_ENCODER_ERROR line_encoder_error_quark()
GQuark line_encoder_error_quark(void);

typedef enum
{
  LINE_ENCODER_ERROR_UNKNOWN_CHARSET,  /* iconv cannot convert UTF-8 to the charset */
  LINE_ENCODER_ERROR_FAILED,           /* the converter failed to start or cannot carry '?' */
} LineEncoderError;

#endif
