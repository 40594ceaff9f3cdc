// A user's top around hpccgold's hpcc_update (Compact, 2 hops, 1 stage)
// with two more register stages on every output: latency 3. Written by hand.
`default_nettype none
module user_piped (
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
  wire c_valid, c_ns_valid, c_out_first, c_out_mi, c_out_update_wc, c_out_notify;
  wire [1:0] c_ns_nhops, c_out_sel_hop, c_out_hop_valid;
  wire [31:0] c_ns_w, c_ns_wc, c_ns_u, c_ns_last_update, c_out_rate;
  wire [2:0] c_ns_inc_stage;
  wire [23:0] c_ns_hop0_ts, c_ns_hop1_ts;
  wire [19:0] c_ns_hop0_tx_bytes, c_ns_hop1_tx_bytes;
  wire [16:0] c_ns_hop0_qlen, c_ns_hop1_qlen;
  hpcc_update core (
    .clk(clk), .rst(rst),
    .st_valid(st_valid), .st_nhops(st_nhops), .st_w(st_w), .st_wc(st_wc), .st_u(st_u),
    .st_inc_stage(st_inc_stage), .st_last_update(st_last_update), .st_hop0_ts(st_hop0_ts), .st_hop1_ts(st_hop1_ts),
    .st_hop0_tx_bytes(st_hop0_tx_bytes), .st_hop1_tx_bytes(st_hop1_tx_bytes), .st_hop0_qlen(st_hop0_qlen), .st_hop1_qlen(st_hop1_qlen),
    .in_seq(in_seq), .in_snd_nxt(in_snd_nxt), .in_nhops(in_nhops), .in_hop0_speed(in_hop0_speed), .in_hop1_speed(in_hop1_speed),
    .in_hop0_ts(in_hop0_ts), .in_hop1_ts(in_hop1_ts), .in_hop0_tx_bytes(in_hop0_tx_bytes), .in_hop1_tx_bytes(in_hop1_tx_bytes), .in_hop0_qlen(in_hop0_qlen), .in_hop1_qlen(in_hop1_qlen),
    .in_valid(in_valid),
    .ns_valid(c_ns_valid), .ns_nhops(c_ns_nhops), .ns_w(c_ns_w), .ns_wc(c_ns_wc), .ns_u(c_ns_u),
    .ns_inc_stage(c_ns_inc_stage), .ns_last_update(c_ns_last_update), .ns_hop0_ts(c_ns_hop0_ts), .ns_hop1_ts(c_ns_hop1_ts),
    .ns_hop0_tx_bytes(c_ns_hop0_tx_bytes), .ns_hop1_tx_bytes(c_ns_hop1_tx_bytes), .ns_hop0_qlen(c_ns_hop0_qlen), .ns_hop1_qlen(c_ns_hop1_qlen),
    .out_rate(c_out_rate), .out_first(c_out_first), .out_mi(c_out_mi), .out_update_wc(c_out_update_wc),
    .out_notify(c_out_notify), .out_sel_hop(c_out_sel_hop), .out_hop_valid(c_out_hop_valid),
    .out_valid(c_valid)
  );
  // Every result, valid bit included, through two more registers.
  localparam W = 297;
  wire [W-1:0] c_bus = {c_valid, c_ns_valid, c_ns_nhops, c_ns_w, c_ns_wc, c_ns_u, c_ns_inc_stage, c_ns_last_update,
                        c_ns_hop0_ts, c_ns_hop1_ts, c_ns_hop0_tx_bytes, c_ns_hop1_tx_bytes, c_ns_hop0_qlen, c_ns_hop1_qlen, c_out_rate, c_out_first, c_out_mi,
                        c_out_update_wc, c_out_notify, c_out_sel_hop, c_out_hop_valid};
  reg [W-1:0] q1, q2;
  always @(posedge clk) begin
    if (rst) begin
      q1[W-1] <= 1'b0;
      q2[W-1] <= 1'b0;
    end else begin
      q1[W-1] <= c_bus[W-1];
      q2[W-1] <= q1[W-1];
    end
    q1[W-2:0] <= c_bus[W-2:0];
    q2[W-2:0] <= q1[W-2:0];
  end
  assign {out_valid, ns_valid, ns_nhops, ns_w, ns_wc, ns_u, ns_inc_stage, ns_last_update,
          ns_hop0_ts, ns_hop1_ts, ns_hop0_tx_bytes, ns_hop1_tx_bytes, ns_hop0_qlen, ns_hop1_qlen, out_rate, out_first, out_mi,
          out_update_wc, out_notify, out_sel_hop, out_hop_valid} = q2;
endmodule
`default_nettype wire
