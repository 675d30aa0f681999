/**
 * Passwords of eight characters or more that lead the public lists of
 * leaked passwords (SecLists, NCSC's 100k): refused at sign-up and change,
 * as NIST SP 800-63B §3.1.1.2 asks. Shorter ones are refused by length.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '!qaz2wsx', '00000000', '11111111', '11223344', '112233445566', '12121212', '123123123', '12341234', '12344321', '123456123', '12345678',
  '123456789', '1234567890', '12345678910', '123456789a', '1234567a', '12345qwert', '1234abcd', '1234qwer', '123654789', '123qweasd',
  '147258369', '159753456', '1a2b3c4d', '1q2w3e4r', '1q2w3e4r5t', '1qaz2wsx', '1qaz2wsx3edc', '1qazxsw2', '22222222', '33333333',
  '44444444', '456789123', '55555555', '66666666', '696969696', '741852963', '77777777', '789456123', '87654321', '88888888', '963852741',
  '987654321', '99999999', 'a1234567', 'a12345678', 'a1b2c3d4', 'aa123456', 'abc12345', 'abcd1234', 'abcdefgh', 'admin123', 'admin1234',
  'adminadmin', 'administrator', 'anything', 'apple123', 'arsenal1', 'asdf1234', 'asdfghjk', 'asdfghjkl', 'ashley12', 'autumn2024',
  'babygirl', 'babygirl1', 'bailey12', 'banana12', 'barcelona', 'baseball', 'baseball1', 'basketball', 'batman12', 'beautiful1',
  'blessed1', 'buster12', 'butterfly', 'celtic12', 'changeme', 'changeme1', 'changeme123', 'charlie1', 'cheese12', 'chelsea1', 'chocolate',
  'christian', 'cocacola1', 'computer', 'cookie12', 'corvette', 'cowboys1', 'default1', 'diamond1', 'dolphin1', 'dragon12', 'dropbox1',
  'eagles12', 'elephant', 'facebook', 'ferrari1', 'flower12', 'football', 'football1', 'fortnite1', 'freedom1', 'ginger12', 'golden12',
  'google123', 'harley12', 'hockey12', 'hunter12', 'hunter123', 'iloveu12', 'iloveyou', 'iloveyou1', 'iloveyou2', 'internet', 'iphone12',
  'jennifer', 'jessica1', 'jesus123', 'jesuschrist', 'jordan23', 'killer12', 'lakers24', 'letmein!', 'letmein1', 'letmein123', 'linkedin',
  'liverpool', 'lovelove', 'loveyou1', 'maggie12', 'manchester', 'master12', 'matrix12', 'mercedes', 'michael1', 'michelle', 'microsoft',
  'minecraft', 'minecraft1', 'monkey12', 'mustang1', 'mypass123', 'mypassword', 'newpassword', 'nothing1', 'orange12', 'p@ssw0rd',
  'p@ssword', 'pa55word', 'passpass', 'passw0rd', 'password', 'password!', 'password01', 'password1', 'password12', 'password123',
  'password2', 'password2020', 'password2021', 'password2022', 'password2023', 'password2024', 'password2025', 'password2026', 'pepper12',
  'phoenix1', 'pokemon1', 'pokemon123', 'porsche1', 'princess', 'princess1', 'pumpkin1', 'purple12', 'q1q1q1q1', 'q1w2e3r4', 'q1w2e3r4t5',
  'qazwsxedc', 'qweasdzxc', 'qwer1234', 'qwerty123', 'qwerty1234', 'qwerty12345', 'qwertyui', 'qwertyuiop', 'qwertyuiop123', 'rainbow1',
  'rangers1', 'root1234', 'rootroot', 'samsung1', 'samsung123', 'scooter1', 'secret12', 'secret123', 'shadow12', 'silver12', 'snoopy12',
  'soccer12', 'spring2024', 'starwars', 'starwars1', 'steelers', 'summer12', 'summer2020', 'summer2021', 'summer2022', 'summer2023',
  'summer2024', 'summer2025', 'sunshine', 'sunshine1', 'superman', 'superman1', 'sweetheart', 'thunder1', 'tigger12', 'toor1234',
  'trustme1', 'trustno1', 'twitter1', 'warrior1', 'welcome1', 'welcome123', 'welcome2024', 'whatever', 'whatever1', 'winter2023',
  'winter2024', 'yamaha12', 'yankees1', 'zaq12wsx', 'zaq1zaq1', 'zxcvbnm1', 'zxcvbnm123',
]);
