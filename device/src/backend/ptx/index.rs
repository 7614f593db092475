//! Thread indexing on the GPU: one `mov.u32` of a special register each.

use super::special_register::special_register;

special_register!(thread_idx_x, "%tid.x");
special_register!(thread_idx_y, "%tid.y");
special_register!(thread_idx_z, "%tid.z");
special_register!(block_idx_x, "%ctaid.x");
special_register!(block_idx_y, "%ctaid.y");
special_register!(block_idx_z, "%ctaid.z");
special_register!(block_dim_x, "%ntid.x");
special_register!(block_dim_y, "%ntid.y");
special_register!(block_dim_z, "%ntid.z");
special_register!(grid_dim_x, "%nctaid.x");
special_register!(grid_dim_y, "%nctaid.y");
special_register!(grid_dim_z, "%nctaid.z");
