/** A unit test keeps this equal to the head of the server's list. */
export const COMMON_WORDS: Readonly<Record<string, number>> = {
  password: 2, qwerty: 4, dragon: 10, baseball: 12, football: 14, monkey: 15, letmein: 16, shadow: 17, master: 18,
  michael: 20, mustang: 21, qwertyuiop: 23, pussy: 26, superman: 27, fuckyou: 30, jordan: 31, qazwsx: 32,
  jennifer: 33, killer: 36, hunter: 38, harley: 39, zxcvbnm: 40, asdfgh: 41, buster: 42, andrew: 43, batman: 44,
  soccer: 45, tigger: 46, charlie: 47, robert: 48, sunshine: 49, thomas: 50, iloveyou: 51, fuckme: 52, ranger: 53,
  daniel: 54, hockey: 55, george: 56, computer: 57, michelle: 58, jessica: 59, starwars: 60, asshole: 61,
  pepper: 62, klaster: 63, zxcvbn: 65, freedom: 66, princess: 67, joshua: 68, maggie: 69, pass: 70, ginger: 71,
  fuck: 74, amanda: 75, ashley: 76, love: 77, cheese: 78, nicole: 80, summer: 81, matthew: 82, chelsea: 83,
  dallas: 84, biteme: 85, matrix: 86, william: 87, yankees: 88, taylor: 90, corvette: 91, austin: 92, access: 93,
  martin: 94, heather: 95, thunder: 96, merlin: 97, secret: 98, diamond: 99, hello: 100, anthony: 101, hammer: 102,
  fucker: 103, silver: 105, gfhjkm: 106, justin: 107, patrick: 108, richard: 109, bailey: 110, internet: 111,
  samantha: 112, golfer: 113, scooter: 114, test: 115, orange: 116, cookie: 117, maverick: 119, jackson: 120,
  sparky: 121, mickey: 122, phoenix: 123, bigdog: 124, snoopy: 125,
}
