package network

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// TestForgerApply drives one port's forger with three honest snapshots
// and checks what each forgery reports (oracle: the kind's definition in
// forge.go, values worked by hand).
func TestForgerApply(t *testing.T) {
	honest := []telemetry.Physical{
		{SpeedGbps: 100, TsNs: 1000, TxBytes: 5000, QlenBytes: 100},
		{SpeedGbps: 100, TsNs: 1500, TxBytes: 6000, QlenBytes: 2000},
		{SpeedGbps: 100, TsNs: 2200, TxBytes: 7000, QlenBytes: 0},
	}
	for _, r := range []struct {
		cfg    ForgeConfig
		want   []telemetry.Physical
		forged uint64
	}{
		{ForgeConfig{Kind: ForgeQlen, QlenBytes: 1000}, []telemetry.Physical{
			{SpeedGbps: 100, TsNs: 1000, TxBytes: 5000, QlenBytes: 1000},
			{SpeedGbps: 100, TsNs: 1500, TxBytes: 6000, QlenBytes: 2000},
			{SpeedGbps: 100, TsNs: 2200, TxBytes: 7000, QlenBytes: 1000}}, 2},
		{ForgeConfig{Kind: ForgeSpeed, SpeedGbps: 400}, []telemetry.Physical{
			{SpeedGbps: 400, TsNs: 1000, TxBytes: 5000, QlenBytes: 100},
			{SpeedGbps: 400, TsNs: 1500, TxBytes: 6000, QlenBytes: 2000},
			{SpeedGbps: 400, TsNs: 2200, TxBytes: 7000, QlenBytes: 0}}, 3},
		{ForgeConfig{Kind: ForgeFrozenTx}, []telemetry.Physical{
			{SpeedGbps: 100, TsNs: 1000, TxBytes: 5000, QlenBytes: 100},
			{SpeedGbps: 100, TsNs: 1500, TxBytes: 5000, QlenBytes: 2000},
			{SpeedGbps: 100, TsNs: 2200, TxBytes: 5000, QlenBytes: 0}}, 2},
		{ForgeConfig{Kind: ForgeReplay, ReplayNs: 1000}, []telemetry.Physical{
			{SpeedGbps: 100, TsNs: 1000, TxBytes: 5000, QlenBytes: 100},
			{SpeedGbps: 100, TsNs: 1000, TxBytes: 5000, QlenBytes: 100},
			{SpeedGbps: 100, TsNs: 2200, TxBytes: 7000, QlenBytes: 0}}, 1},
	} {
		f := &forger{cfg: r.cfg, ports: make([]forgePort, 1)}
		for i, h := range honest {
			ph := h
			f.apply(0, &ph)
			if ph != r.want[i] {
				t.Errorf("%s: snapshot %d: %+v, want %+v", r.cfg.Kind, i, ph, r.want[i])
			}
		}
		if f.forged != r.forged {
			t.Errorf("%s: forged %d, want %d", r.cfg.Kind, f.forged, r.forged)
		}
	}
}

// TestForgeConfigErrors: each bad field is named.
func TestForgeConfigErrors(t *testing.T) {
	for _, r := range []struct {
		f    ForgeConfig
		want string
	}{
		{ForgeConfig{Switch: 3, Kind: ForgeFrozenTx}, "forge[0].switch=3"},
		{ForgeConfig{Kind: "loud"}, `forge[0].kind="loud"`},
		{ForgeConfig{Kind: ForgeQlen}, "forge[0].qlen_bytes=0"},
		{ForgeConfig{Kind: ForgeSpeed, SpeedGbps: 33}, "speed_gbps=33"},
		{ForgeConfig{Kind: ForgeReplay}, "forge[0].replay_ns=0"},
		{ForgeConfig{Kind: ForgeFrozenTx, ReplayNs: 5}, "forge[0].replay_ns=5: not used by kind frozen_tx"},
	} {
		if err := r.f.validate(0, 1, telemetry.IFA); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%+v: %v, want an error containing %q", r.f, err, r.want)
		}
	}
}
