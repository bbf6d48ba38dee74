// Each line below is a mistake the declarations must catch (types.test.js expects one
// error per line marked with "error:").
import * as mfa from '../../index';

declare const ctx: mfa.Context;
declare const resolver: mfa.MultiFactorResolver;

void mfa.Context.open({ store: 'x' }); // error: masterKey is required
void ctx.multiFactor({ uid: 'alice' }); // error: authTime is required
void resolver.resolveSignIn({ kind: 1, code: '123456' }); // error: not an assertion
void mfa.TOTPMultiFactorGenerator.assertionForSignIn('id', 123456); // error: a code is a string
void new mfa.TOTP('JBSWY3DPEHPK3PXP'); // error: a secret is bytes
const wrong: string = mfa.qrCode('x'); // error: a PNG is a Buffer
void ctx.admin('ops').importFactors('x', 'xml'); // error: no such format
void wrong;
