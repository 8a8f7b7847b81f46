/**
 * A small shipped list of common passwords that pass the length rule (12 to 128 characters), drawn
 * from the most frequent entries of public breach corpora. Compared case-insensitively.
 * Shorter common passwords need no entry: the length rule refuses them already.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "123456789012", "1234567890123", "12345678901234", "123456789123", "1234567891011", "123123123123",
  "111111111111", "000000000000", "123412341234", "121212121212", "098765432109", "987654321098",
  "qwertyuiopas", "qwertyuiop123", "qwertyuiopasdfgh", "qwerty123456", "qwertyqwerty", "1qaz2wsx3edc",
  "1q2w3e4r5t6y", "q1w2e3r4t5y6", "zaq12wsxcde3", "asdfghjkl123", "asdfasdfasdf", "zxcvbnm12345",
  "password1234", "password12345", "password123456", "passwordpassword", "password1!23", "p@ssword1234",
  "p@ssw0rd1234", "passw0rd1234", "mypassword123", "mypassword1234", "password!123", "changeme1234",
  "letmein12345", "letmeinletmein", "welcome12345", "welcome123456", "welcometo2024", "iloveyou1234",
  "iloveyou12345", "iloveyouiloveyou", "sunshine1234", "princess1234", "football1234", "baseball1234",
  "superman1234", "starwars1234", "dragon123456", "monkey123456", "master123456", "shadow123456",
  "michael12345", "jennifer1234", "trustno11234", "abc123456789", "abcdefghijkl", "abcdefg12345",
  "abcd12345678", "administrator", "administrator1", "admin1234567", "adminadmin123", "rootroot1234",
  "computer1234", "internet1234", "whatever1234", "freedom12345", "charlie12345", "password2020",
  "password2021", "password2022", "password2023", "password2024", "password2025", "password2026",
  "summer2024!!", "winter2024!!", "spring2024!!", "autumn2024!!", "correcthorsebatterystaple",
  "aaaaaaaaaaaa", "abcabcabcabc", "testtest1234", "test12345678", "qazwsxedcrfv", "1234qwerasdf",
  "qwer1234asdf", "asdf1234qwer", "11111111111111", "123456123456", "654321654321", "secret123456",
]);
