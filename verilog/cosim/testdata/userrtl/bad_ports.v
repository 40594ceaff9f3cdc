// A top whose ports do not fit the golden set: in_hop0_qlen is missing,
// ns_w is 31 bits instead of 32, and dbg_state is not a field. The port
// contract check must name all three before building anything. Written by
// hand; its logic does not matter.
`default_nettype none
module user_bad_ports (
  input  wire        clk,
  input  wire        rst,
  input  wire        in_valid,
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
  input  wire [16:0] in_hop1_qlen,
  output reg         out_valid,
  output wire        ns_valid,
  output wire [1:0]  ns_nhops,
  output wire [30:0] ns_w,
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
  output wire [1:0]  out_hop_valid,
  output wire [3:0]  dbg_state
);
  always @(posedge clk) out_valid <= in_valid & ~rst;
  assign {ns_valid, ns_nhops, ns_w, ns_wc, ns_u, ns_inc_stage, ns_last_update} =
         {st_valid, st_nhops, st_w[30:0], st_wc, st_u, st_inc_stage, st_last_update};
  assign {ns_hop0_ts, ns_hop1_ts, ns_hop0_tx_bytes, ns_hop1_tx_bytes, ns_hop0_qlen, ns_hop1_qlen} =
         {st_hop0_ts, st_hop1_ts, st_hop0_tx_bytes, st_hop1_tx_bytes, st_hop0_qlen, st_hop1_qlen};
  assign {out_rate, out_first, out_mi, out_update_wc, out_notify, out_sel_hop, out_hop_valid, dbg_state} =
         {in_seq, 4'd0, in_nhops, in_hop0_speed[1:0], 4'd0};
endmodule
`default_nettype wire
