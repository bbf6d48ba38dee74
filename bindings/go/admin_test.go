package mfa_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"libmfa/mfa"
)

const rfcBase32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" // "12345678901234567890"

func TestAdmin(t *testing.T) {
	for _, store := range stores(t) {
		store := store
		t.Run(store.name, func(t *testing.T) { adminCalls(t, store.make(t)) })
	}
}

func adminCalls(t *testing.T, store string) {
	k := newKit(t, store, nil)
	admin := k.c.Admin("ops:bob")
	var infos []*mfa.FactorInfo
	for i := 0; i < 3; i++ {
		info, _ := k.enrollTOTP(k.user(fmt.Sprintf("admin-%d", i)), "")
		infos = append(infos, info)
	}
	tenantUser := k.user("admin-t")
	tenantUser.Tenant = "corp"
	if err := k.c.SetConfig(bg, "corp", allOn); err != nil {
		t.Fatal(err)
	}
	k.enrollTOTP(tenantUser, "")

	// Pages of two, over every tenant; then the project only; then one tenant.
	var seen []string
	err := admin.EachUser(bg, mfa.ListUsersOptions{Limit: 2}, func(u mfa.AdminUser) error {
		seen = append(seen, u.Tenant+"/"+u.UID)
		if u.FactorTotal != 1 || len(u.Kinds) != 1 || u.Kinds[0].FactorID != "totp" || u.Kinds[0].Count != 1 {
			t.Errorf("user %+v", u)
		}
		return nil
	})
	if err != nil || strings.Join(seen, " ") != "/admin-0 /admin-1 /admin-2 corp/admin-t" {
		t.Fatalf("every user: %v, %v", seen, err)
	}
	page, err := admin.ListUsers(bg, mfa.ListUsersOptions{ProjectOnly: true, Limit: 2})
	if err != nil || len(page.Users) != 2 || page.NextCursor == "" {
		t.Fatalf("first page: %+v, %v", page, err)
	}
	page, err = admin.ListUsers(bg, mfa.ListUsersOptions{ProjectOnly: true, Limit: 2, Cursor: page.NextCursor})
	if err != nil || len(page.Users) != 1 || page.NextCursor != "" {
		t.Fatalf("last page: %+v, %v", page, err)
	}
	page, err = admin.ListUsers(bg, mfa.ListUsersOptions{Tenant: "corp"})
	if err != nil || len(page.Users) != 1 || page.Users[0].Tenant != "corp" {
		t.Fatalf("one tenant: %+v, %v", page, err)
	}
	stop := errors.New("enough")
	if err := admin.EachUser(bg, mfa.ListUsersOptions{}, func(mfa.AdminUser) error { return stop }); err != stop {
		t.Fatalf("EachUser's own error: %v", err)
	}
	for _, bad := range []mfa.ListUsersOptions{{Limit: mfa.AdminPageMax + 1}, {FactorID: "carrier-pigeon"},
		{Cursor: "forged"}} {
		_, err := admin.ListUsers(bg, bad)
		wantErr(t, err, mfa.ErrInvalidArgument)
	}

	stats, err := admin.Stats(bg)
	if err != nil || stats.TotalUsers != 4 || stats.TotalFactors != 4 || stats.TenantUsers[""] != 3 ||
		stats.TenantUsers["corp"] != 1 || len(stats.Rows) != 2 {
		t.Fatalf("stats: %+v, %v", stats, err)
	}

	got, err := admin.Factor(bg, infos[0].UID, false)
	if err != nil || got.UID != "admin-0" || got.Info.UID != infos[0].UID {
		t.Fatalf("factor: %+v, %v", got, err)
	}
	renamed, err := admin.Rename(bg, infos[0].UID, "Desk token")
	if err != nil || renamed.Info.DisplayName != "Desk token" || k.lastEvent().Kind != mfa.AuditFactorRenamed {
		t.Fatalf("rename: %+v, %v", renamed, err)
	}
	removed, err := admin.Unenroll(bg, infos[1].UID)
	if err != nil || removed.UID != "admin-1" || k.lastEvent().Detail != "ADMIN" || k.lastEvent().Actor != "ops:bob" {
		t.Fatalf("unenroll: %+v, %v, %+v", removed, err, k.lastEvent())
	}
	_, err = admin.Factor(bg, infos[1].UID, false)
	wantErr(t, err, mfa.ErrMFAEnrollmentNotFound)
	deleted, err := admin.DeleteUser(bg, "", "admin-2")
	if err != nil || len(deleted) != 1 || k.lastEvent().Kind != mfa.AuditUserDeleted {
		t.Fatalf("delete: %+v, %v", deleted, err)
	}
	_, err = k.c.Admin("").Unenroll(bg, infos[0].UID)
	wantErr(t, err, mfa.ErrInvalidArgument)

	// Imports: a report per line (an HOTP URI is an HOTP factor), then a re-run that stores nothing twice.
	text := "otpauth://totp/ACME:imp-a?secret=" + rfcBase32 + "&issuer=ACME\n" +
		"# a comment\n" +
		"otpauth://hotp/ACME:imp-b?secret=" + rfcBase32 + "&counter=1\n" +
		"not a uri\n"
	summary, err := admin.Import(bg, []byte(text), mfa.ImportOTPAuth, mfa.ImportOptions{})
	if err != nil || summary.Lines != 4 || summary.Imported != 2 || summary.Unsupported != 0 || summary.Failed != 1 ||
		len(summary.Reports) != 3 || summary.Reports[0].Outcome != mfa.ImportImported || summary.Reports[0].UID != "imp-a" ||
		summary.Reports[2].Line != 4 || summary.Reports[2].OutcomeName != "FAILED" {
		t.Fatalf("import: %+v, %v", summary, err)
	}
	for _, r := range summary.Reports {
		if strings.Contains(r.Reason, rfcBase32) || strings.Contains(r.Reason, "not a uri") {
			t.Fatalf("a report shows the line: %+v", r)
		}
	}
	var lines []int64
	var progress [][2]int64
	again, err := admin.Import(bg, []byte(text), mfa.ImportOTPAuth, mfa.ImportOptions{BatchSize: 1,
		Report:   func(l mfa.ImportLine) { lines = append(lines, l.Line) },
		Progress: func(done, total int64) bool { progress = append(progress, [2]int64{done, total}); return true }})
	if err != nil || again.AlreadyImported != 2 || again.Imported != 0 || len(again.Reports) != 0 ||
		fmt.Sprint(lines) != "[1 3 4]" || len(progress) == 0 || progress[len(progress)-1] != [2]int64{4, 4} {
		t.Fatalf("re-run: %+v, %v, %v, %v", again, err, lines, progress)
	}
	// Progress stops an import after its batch.
	csv := "uid,secret\nimp-c," + rfcBase32 + "\nimp-d," + rfcBase32 + "\nimp-e," + rfcBase32 + "\n"
	stopped, err := admin.Import(bg, []byte(csv), mfa.ImportCSV, mfa.ImportOptions{BatchSize: 1,
		Progress: func(done, total int64) bool { return done < 2 }}) // the header, then imp-c
	if err != nil || !stopped.Stopped || stopped.Imported != 1 {
		t.Fatalf("stopped: %+v, %v", stopped, err)
	}
	_, err = admin.Import(bg, []byte(text), 99, mfa.ImportOptions{})
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, err = admin.Import(bg, []byte("\xff\xfe"), mfa.ImportCSV, mfa.ImportOptions{})
	wantErr(t, err, mfa.ErrInvalidArgument)

	ga := rfcBase32 + "\n\" RATE_LIMIT 3 30\n\" TOTP_AUTH\n12345678\n87654321\n"
	gaSummary, err := admin.ImportGoogleAuthenticator(bg, []byte(ga), "ga-user", mfa.ImportOptions{})
	if err != nil || gaSummary.Imported != 1 || gaSummary.RecoveryCodes != 2 {
		t.Fatalf("google authenticator: %+v, %v", gaSummary, err)
	}
	factors, _ := admin.UserFactors(bg, "", "ga-user", false)
	if len(factors) != 2 || factors[0].FactorID != "totp" || factors[1].FactorID != "recovery" {
		t.Fatalf("imported factors: %+v", factors)
	}

	// Key rotation and the seal check, with progress.
	var rotated [][2]int64
	result, err := admin.RotateKeys(bg, 2, func(done, total int64) bool {
		rotated = append(rotated, [2]int64{done, total})
		return true
	})
	if err != nil || result.Remaining != 0 || result.Stopped {
		t.Fatalf("rotation: %+v, %v", result, err)
	}
	check, err := admin.CheckSeals(bg, 0, nil)
	if err != nil || check.Failed != 0 || check.Checked == 0 {
		t.Fatalf("seal check: %+v, %v", check, err)
	}
	_, err = admin.RotateKeys(bg, mfa.RotationBatchMax+1, nil)
	wantErr(t, err, mfa.ErrInvalidArgument)
	if n, err := k.c.RotateKeys(bg); err != nil || n != 0 {
		t.Fatalf("nothing left to rotate: %d, %v", n, err)
	}
}

// A panic in an import's report stops the import and comes back to the caller.
func TestImportReportPanic(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	text := ""
	for i := 0; i < 5; i++ {
		text += fmt.Sprintf("otpauth://totp/ACME:p-%d?secret=%s\n", i, rfcBase32)
	}
	var progressCalls int
	recovered := func() (value any) {
		defer func() { value = recover() }()
		k.c.Admin("ops").Import(bg, []byte(text), mfa.ImportOTPAuth, mfa.ImportOptions{BatchSize: 1,
			Report:   func(l mfa.ImportLine) { panic(fmt.Sprintf("report of line %d", l.Line)) },
			Progress: func(done, total int64) bool { progressCalls++; return true }})
		return nil
	}()
	if recovered != "report of line 1" || progressCalls != 0 {
		t.Fatalf("recovered %v after %d progress calls", recovered, progressCalls)
	}
	// The context is fine afterwards, and the first batch was stored.
	factors, err := k.c.Admin("ops").UserFactors(bg, "", "p-0", false)
	if err != nil || len(factors) != 1 {
		t.Fatalf("after the panic: %v, %v", factors, err)
	}
}

func TestImportTOTP(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	user := k.user("imported")
	info, err := k.c.ImportTOTP(bg, user, []byte("12345678901234567890"), &mfa.TOTPParams{Digits: 8}, "old app")
	if err != nil || info.DisplayName != "old app" {
		t.Fatalf("import: %+v, %v", info, err)
	}
	app, _ := mfa.NewTOTP([]byte("12345678901234567890"), mfa.TOTPParams{Digits: 8})
	k.advance(30)
	if _, err := k.resolver(user).ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 0))); err != nil {
		t.Fatalf("sign-in with the imported factor: %v", err)
	}
	other := k.user("imported-uri")
	if _, err := k.c.ImportTOTPURI(bg, other, "otpauth://totp/X:y?secret="+rfcBase32, ""); err != nil {
		t.Fatal(err)
	}
	_, err = k.c.ImportTOTPURI(bg, other, "otpauth://hotp/X:y?secret="+rfcBase32+"&counter=0", "")
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, err = k.c.ImportTOTPURI(bg, other, "https://nope", "")
	wantErr(t, err, mfa.ErrInvalidURI)
	_, err = k.c.ImportTOTP(bg, other, []byte("short"), nil, "")
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, err = k.c.ImportTOTP(bg, other, []byte("12345678901234567890"), &mfa.TOTPParams{T0: 9}, "")
	wantErr(t, err, mfa.ErrInvalidArgument)
}
