/** base64url.json (bytes and their one b64u spelling) and base64url-invalid.json (texts b64u decoding refuses). */
import { Base64urlError, b64uDecode, b64uEncode } from '../../src/index.js';
import { agree, hexBytes, toHex } from './agree.js';

export type B64uVector = { hex: string; b64u: string };
export type B64uInvalidVector = { name: string; text: string; error: string; why: string };

const BYTES = ['', '00', 'ff', '0000', 'fbff', 'ffffff', '000102', '666f6f626172', 'fbef', '00000000000000000000000000000000000000000000000000000000000000ff'];

export function b64uVectors(): B64uVector[] {
  return BYTES.map((hex) => {
    const b64u = b64uEncode(hexBytes(hex));
    agree(`b64u round trip of ${hex}`, toHex(b64uDecode(b64u)), hex);
    return { hex, b64u };
  });
}

const invalid: B64uInvalidVector[] = [
  { name: 'padding', text: 'AA==', error: 'padding', why: 'b64u has no = padding' },
  { name: 'one padding character', text: 'AAA=', error: 'padding', why: 'b64u has no = padding' },
  { name: 'standard alphabet +', text: '-_+A', error: 'alphabet', why: 'b64u uses - and _, never + and /' },
  { name: 'standard alphabet /', text: '//8', error: 'alphabet', why: 'b64u uses - and _, never + and /' },
  { name: 'space', text: 'AA AA', error: 'alphabet', why: 'no whitespace inside' },
  { name: 'trailing newline', text: 'AAAA\n', error: 'alphabet', why: 'no whitespace around' },
  { name: 'length 1 (mod 4)', text: 'AAAAA', error: 'length', why: 'a length of 1 modulo 4 encodes no whole byte' },
  { name: 'non-zero trailing bits (1 byte)', text: 'AB', error: 'trailing_bits', why: 'the 4 unused bits must be zero: the one spelling of 0x00 is AA' },
  { name: 'non-zero trailing bits (2 bytes)', text: '-_9', error: 'trailing_bits', why: 'the 2 unused bits must be zero: the one spelling of fbff is -_8' },
  { name: 'non-ASCII character', text: 'AAÀA', error: 'alphabet', why: 'only [A-Za-z0-9_-]' },
];

export function b64uInvalidVectors(): B64uInvalidVector[] {
  for (const v of invalid) {
    let refused = false;
    try {
      b64uDecode(v.text);
    } catch (err) {
      refused = err instanceof Base64urlError;
    }
    agree(`base64url-invalid "${v.name}" is refused`, refused, true);
  }
  return invalid;
}
