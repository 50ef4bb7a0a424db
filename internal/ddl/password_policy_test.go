// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"slices"
	"strings"
	"testing"
)

func TestPasswordPolicyUnmet(t *testing.T) {
	t.Parallel()
	mysqlMedium := [][2]string{
		{"validate_password.check_user_name", "ON"}, {"validate_password.length", "8"},
		{"validate_password.mixed_case_count", "1"}, {"validate_password.number_count", "1"},
		{"validate_password.policy", "MEDIUM"}, {"validate_password.special_char_count", "1"},
	}
	mysqlLow := slices.Clone(mysqlMedium)
	mysqlLow[4] = [2]string{"validate_password.policy", "LOW"}
	mariadb := [][2]string{
		{"simple_password_check_digits", "1"}, {"simple_password_check_letters_same_case", "1"},
		{"simple_password_check_minimal_length", "8"}, {"simple_password_check_other_characters", "1"},
		{"strict_password_validation", "ON"},
	}
	for _, c := range []struct {
		name     string
		settings [][2]string
		pw       string
		want     []string
	}{
		{"no policy", nil, "x", nil},
		{"mysql medium, strong", mysqlMedium, "Str0ng-Passw0rd!", nil},
		{"mysql medium, short", mysqlMedium, "weak", []string{"validate_password.length = 8", "validate_password.mixed_case_count = 1",
			"validate_password.number_count = 1", "validate_password.special_char_count = 1"}},
		{"mysql medium, no upper", mysqlMedium, "str0ng-passw0rd!", []string{"validate_password.mixed_case_count = 1"}},
		{"mysql low counts length only", mysqlLow, "lowercase", nil},
		{"mysql low, short", mysqlLow, "Sh0rt!", []string{"validate_password.length = 8"}},
		// Non-ASCII: the server's character classes are its own; only the
		// length (bytes >= characters) is certain.
		{"non-ascii classes left to the apply", mysqlMedium, "ééééééé", nil},
		{"non-ascii, short in bytes", mysqlMedium, "é", []string{"validate_password.length = 8"}},
		{"mariadb, strong", mariadb, "Str0ng-Passw0rd!", nil},
		{"mariadb, no digit", mariadb, "Strong-Password!", []string{"simple_password_check_digits = 1"}},
		{"plugin variable names", [][2]string{{"validate_password_length", "12"}, {"validate_password_policy", "0"}}, "Str0ng-Pass!",
			nil},
		{"plugin variable names, short", [][2]string{{"validate_password_length", "13"}, {"validate_password_policy", "0"}}, "Str0ng-Pass!",
			[]string{"validate_password_length = 13"}},
	} {
		pw, err := NewPassword(c.pw)
		if err != nil {
			t.Fatal(err)
		}
		p := ParsePasswordPolicy(c.settings)
		if got := p.Unmet(pw); !slices.Equal(got, c.want) {
			t.Errorf("%s: Unmet = %q, want %q", c.name, got, c.want)
		}
	}
	user, _ := NewUsername(EngineMySQL, "acme_app")
	secret := "zqx"
	pw, _ := NewPassword(secret)
	p := ParsePasswordPolicy(mysqlMedium)
	msg := p.ErrPasswordPolicy("main", user, p.Unmet(pw)).Error()
	if strings.Contains(msg, secret) || !strings.Contains(msg, "does not satisfy") || !strings.Contains(msg, "validate_password.length = 8") {
		t.Errorf("the refusal quotes the password or lacks the policy: %s", msg)
	}
}
