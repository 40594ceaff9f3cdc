// A user's top around hpccgold's hpcc_update (Compact, 2 hops, 1 stage)
// with a ready handshake: it takes one transaction, holds it 0 to 3 cycles
// (a 4-bit LFSR picks how long), hands it to the core and only then takes
// the next, so in_ready, in_valid and out_valid all have idle cycles.
// SystemVerilog (logic, always_ff) with its LFSR in an include file next
// to it (ready_lfsr.svh). Written by hand.
`default_nettype none
`include "ready_lfsr.svh"
module user_ready (
  input  wire        clk,
  input  wire        rst,
  input  wire        in_valid,
  output wire        in_ready,
  input  wire        st_valid,
  input  wire [1:0]  st_nhops,
  input  wire [31:0] st_w,
  input  wire [31:0] st_wc,
  input  wire [31:0] st_u,
  input  wire [2:0]  st_inc_stage,
  input  wire [31:0] st_last_update,
  input  wire [23:0] st_hop0_ts,
  input  wire [23:0] st_hop1_ts,
  input  wire [19:0] st_hop0_tx_bytes,
  input  wire [19:0] st_hop1_tx_bytes,
  input  wire [16:0] st_hop0_qlen,
  input  wire [16:0] st_hop1_qlen,
  input  wire [31:0] in_seq,
  input  wire [31:0] in_snd_nxt,
  input  wire [1:0]  in_nhops,
  input  wire [2:0]  in_hop0_speed,
  input  wire [2:0]  in_hop1_speed,
  input  wire [23:0] in_hop0_ts,
  input  wire [23:0] in_hop1_ts,
  input  wire [19:0] in_hop0_tx_bytes,
  input  wire [19:0] in_hop1_tx_bytes,
  input  wire [16:0] in_hop0_qlen,
  input  wire [16:0] in_hop1_qlen,
  output wire        out_valid,
  output wire        ns_valid,
  output wire [1:0]  ns_nhops,
  output wire [31:0] ns_w,
  output wire [31:0] ns_wc,
  output wire [31:0] ns_u,
  output wire [2:0]  ns_inc_stage,
  output wire [31:0] ns_last_update,
  output wire [23:0] ns_hop0_ts,
  output wire [23:0] ns_hop1_ts,
  output wire [19:0] ns_hop0_tx_bytes,
  output wire [19:0] ns_hop1_tx_bytes,
  output wire [16:0] ns_hop0_qlen,
  output wire [16:0] ns_hop1_qlen,
  output wire [31:0] out_rate,
  output wire        out_first,
  output wire        out_mi,
  output wire        out_update_wc,
  output wire        out_notify,
  output wire [1:0]  out_sel_hop,
  output wire [1:0]  out_hop_valid
);
  localparam W = 450;
  wire [W-1:0] in_bus = {st_valid, st_nhops, st_w, st_wc, st_u, st_inc_stage, st_last_update, st_hop0_ts, st_hop1_ts,
                         st_hop0_tx_bytes, st_hop1_tx_bytes, st_hop0_qlen, st_hop1_qlen, in_seq, in_snd_nxt, in_nhops, in_hop0_speed, in_hop1_speed,
                         in_hop0_ts, in_hop1_ts, in_hop0_tx_bytes, in_hop1_tx_bytes, in_hop0_qlen, in_hop1_qlen};
  logic [W-1:0] hold;
  wire h_st_valid;
  wire [1:0] h_st_nhops, h_in_nhops;
  wire [31:0] h_st_w, h_st_wc, h_st_u, h_st_last_update, h_in_seq, h_in_snd_nxt;
  wire [2:0] h_st_inc_stage, h_in_hop0_speed, h_in_hop1_speed;
  wire [23:0] h_st_hop0_ts, h_st_hop1_ts, h_in_hop0_ts, h_in_hop1_ts;
  wire [19:0] h_st_hop0_tx_bytes, h_st_hop1_tx_bytes, h_in_hop0_tx_bytes, h_in_hop1_tx_bytes;
  wire [16:0] h_st_hop0_qlen, h_st_hop1_qlen, h_in_hop0_qlen, h_in_hop1_qlen;
  assign {h_st_valid, h_st_nhops, h_st_w, h_st_wc, h_st_u, h_st_inc_stage, h_st_last_update, h_st_hop0_ts, h_st_hop1_ts,
          h_st_hop0_tx_bytes, h_st_hop1_tx_bytes, h_st_hop0_qlen, h_st_hop1_qlen, h_in_seq, h_in_snd_nxt, h_in_nhops, h_in_hop0_speed, h_in_hop1_speed,
          h_in_hop0_ts, h_in_hop1_ts, h_in_hop0_tx_bytes, h_in_hop1_tx_bytes, h_in_hop0_qlen, h_in_hop1_qlen} = hold;

  logic busy, fire;
  logic [1:0] wait_n;
  logic [3:0] lfsr;
  assign in_ready = !busy && !rst;
  always_ff @(posedge clk) begin
    fire <= 1'b0;
    if (rst) begin
      busy <= 1'b0;
      lfsr <= `READY_LFSR_SEED;
      wait_n <= 2'd0;
    end else if (!busy) begin
      if (in_valid) begin
        hold <= in_bus;
        busy <= 1'b1;
        wait_n <= lfsr[1:0];
        lfsr <= `READY_LFSR_NEXT(lfsr);
      end
    end else if (wait_n == 2'd0) begin
      fire <= 1'b1;
      busy <= 1'b0;
    end else begin
      wait_n <= wait_n - 2'd1;
    end
  end

  hpcc_update core (
    .clk(clk), .rst(rst),
    .st_valid(h_st_valid), .st_nhops(h_st_nhops), .st_w(h_st_w), .st_wc(h_st_wc), .st_u(h_st_u),
    .st_inc_stage(h_st_inc_stage), .st_last_update(h_st_last_update), .st_hop0_ts(h_st_hop0_ts), .st_hop1_ts(h_st_hop1_ts),
    .st_hop0_tx_bytes(h_st_hop0_tx_bytes), .st_hop1_tx_bytes(h_st_hop1_tx_bytes), .st_hop0_qlen(h_st_hop0_qlen), .st_hop1_qlen(h_st_hop1_qlen),
    .in_seq(h_in_seq), .in_snd_nxt(h_in_snd_nxt), .in_nhops(h_in_nhops), .in_hop0_speed(h_in_hop0_speed), .in_hop1_speed(h_in_hop1_speed),
    .in_hop0_ts(h_in_hop0_ts), .in_hop1_ts(h_in_hop1_ts), .in_hop0_tx_bytes(h_in_hop0_tx_bytes), .in_hop1_tx_bytes(h_in_hop1_tx_bytes), .in_hop0_qlen(h_in_hop0_qlen), .in_hop1_qlen(h_in_hop1_qlen),
    .in_valid(fire),
    .ns_valid(ns_valid), .ns_nhops(ns_nhops), .ns_w(ns_w), .ns_wc(ns_wc), .ns_u(ns_u),
    .ns_inc_stage(ns_inc_stage), .ns_last_update(ns_last_update), .ns_hop0_ts(ns_hop0_ts), .ns_hop1_ts(ns_hop1_ts),
    .ns_hop0_tx_bytes(ns_hop0_tx_bytes), .ns_hop1_tx_bytes(ns_hop1_tx_bytes), .ns_hop0_qlen(ns_hop0_qlen), .ns_hop1_qlen(ns_hop1_qlen),
    .out_rate(out_rate), .out_first(out_first), .out_mi(out_mi), .out_update_wc(out_update_wc),
    .out_notify(out_notify), .out_sel_hop(out_sel_hop), .out_hop_valid(out_hop_valid),
    .out_valid(out_valid)
  );
endmodule
`default_nettype wire
