//! Which arguments of a state storage configuration decide where the state is kept, or
//! with which credentials (and trust) it is reached: per backend, as Terraform 1.15.5
//! declares them (`internal/backend/init/init.go` lists the backends, each backend's
//! `ConfigSchema` its arguments; `internal/cloud` the `cloud` block). An override that
//! adds one of these is a swap; one that adds any other (`skip_credentials_validation`,
//! `encrypt`, `dynamodb_table`) changes how the same state is used, and is left to the
//! other rules. Arguments dropped or changed are a swap whatever they are (see the rule).

/// What an argument decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// Which server, container or object holds the state (or its lock).
    Place,
    /// Which identity reaches it, or which server is trusted to be it.
    Access,
}

use Role::{Access, Place};

/// A backend type (or `cloud`) and its arguments that move or re-authorise its state.
struct Settings {
    name: &'static str,
    args: &'static [(&'static str, Role)],
}

/// Every backend Terraform 1.15 has, and the `cloud` block. `inmem` (a test backend that
/// keeps state in memory) has nothing that moves it.
static BACKENDS: &[Settings] = &[
    Settings { name: "local", args: &[("path", Place), ("workspace_dir", Place)] },
    Settings {
        name: "cloud",
        args: &[
            ("hostname", Place),
            ("organization", Place),
            ("workspaces", Place),
            ("token", Access),
        ],
    },
    Settings {
        name: "remote",
        args: &[
            ("hostname", Place),
            ("organization", Place),
            ("workspaces", Place),
            ("token", Access),
        ],
    },
    Settings {
        name: "s3",
        args: &[
            ("bucket", Place),
            ("key", Place),
            ("region", Place),
            ("workspace_key_prefix", Place),
            ("endpoint", Place),
            ("endpoints", Place),
            ("use_path_style", Place),
            ("force_path_style", Place),
            ("use_fips_endpoint", Place),
            ("use_dualstack_endpoint", Place),
            ("dynamodb_endpoint", Place),
            ("http_proxy", Place),
            ("https_proxy", Place),
            ("profile", Access),
            ("role_arn", Access),
            ("assume_role", Access),
            ("assume_role_with_web_identity", Access),
            ("access_key", Access),
            ("secret_key", Access),
            ("token", Access),
            ("shared_config_files", Access),
            ("shared_credentials_file", Access),
            ("shared_credentials_files", Access),
            ("sts_endpoint", Access),
            ("sts_region", Access),
            ("iam_endpoint", Access),
            ("ec2_metadata_service_endpoint", Access),
            ("custom_ca_bundle", Access),
            ("insecure", Access),
        ],
    },
    Settings {
        name: "azurerm",
        args: &[
            ("storage_account_name", Place),
            ("container_name", Place),
            ("key", Place),
            ("resource_group_name", Place),
            ("subscription_id", Place),
            ("environment", Place),
            ("metadata_host", Place),
            ("endpoint", Place),
            ("lookup_blob_endpoint", Place),
            ("snapshot", Place),
            ("tenant_id", Access),
            ("use_azuread_auth", Access),
            ("access_key", Access),
            ("sas_token", Access),
            ("client_id", Access),
            ("client_id_file_path", Access),
            ("client_certificate", Access),
            ("client_certificate_path", Access),
            ("client_certificate_password", Access),
            ("client_secret", Access),
            ("client_secret_file_path", Access),
            ("use_oidc", Access),
            ("ado_pipeline_service_connection_id", Access),
            ("oidc_request_token", Access),
            ("oidc_request_url", Access),
            ("oidc_token", Access),
            ("oidc_token_file_path", Access),
            ("use_msi", Access),
            ("msi_endpoint", Access),
            ("use_cli", Access),
            ("use_aks_workload_identity", Access),
        ],
    },
    Settings {
        name: "gcs",
        args: &[
            ("bucket", Place),
            ("prefix", Place),
            ("storage_custom_endpoint", Place),
            ("credentials", Access),
            ("access_token", Access),
            ("impersonate_service_account", Access),
            ("impersonate_service_account_delegates", Access),
        ],
    },
    Settings {
        name: "consul",
        args: &[
            ("address", Place),
            ("path", Place),
            ("scheme", Place),
            ("datacenter", Place),
            ("access_token", Access),
            ("http_auth", Access),
            ("ca_file", Access),
            ("cert_file", Access),
            ("key_file", Access),
        ],
    },
    Settings {
        name: "cos",
        args: &[
            ("bucket", Place),
            ("prefix", Place),
            ("key", Place),
            ("region", Place),
            ("endpoint", Place),
            ("domain", Place),
            ("secret_id", Access),
            ("secret_key", Access),
            ("security_token", Access),
            ("assume_role", Access),
            ("shared_credentials_dir", Access),
            ("profile", Access),
            ("cam_role_name", Access),
        ],
    },
    Settings {
        name: "http",
        args: &[
            ("address", Place),
            ("lock_address", Place),
            ("unlock_address", Place),
            ("username", Access),
            ("password", Access),
            ("client_ca_certificate_pem", Access),
            ("client_certificate_pem", Access),
            ("client_private_key_pem", Access),
            ("skip_cert_verification", Access),
        ],
    },
    Settings { name: "inmem", args: &[] },
    Settings {
        name: "kubernetes",
        args: &[
            ("secret_suffix", Place),
            ("namespace", Place),
            ("host", Place),
            ("in_cluster_config", Place),
            ("load_config_file", Place),
            ("config_path", Place),
            ("config_paths", Place),
            ("config_context", Place),
            ("config_context_cluster", Place),
            ("proxy_url", Place),
            ("config_context_auth_info", Access),
            ("username", Access),
            ("password", Access),
            ("token", Access),
            ("client_certificate", Access),
            ("client_key", Access),
            ("cluster_ca_certificate", Access),
            ("insecure", Access),
            ("exec", Access),
        ],
    },
    Settings {
        name: "oci",
        args: &[
            ("bucket", Place),
            ("namespace", Place),
            ("key", Place),
            ("region", Place),
            ("workspace_key_prefix", Place),
            ("auth", Access),
            ("tenancy_ocid", Access),
            ("user_ocid", Access),
            ("fingerprint", Access),
            ("private_key", Access),
            ("private_key_path", Access),
            ("private_key_password", Access),
            ("config_file_profile", Access),
        ],
    },
    Settings {
        name: "oss",
        args: &[
            ("bucket", Place),
            ("prefix", Place),
            ("key", Place),
            ("region", Place),
            ("endpoint", Place),
            ("tablestore_endpoint", Place),
            ("tablestore_instance_name", Place),
            ("tablestore_table", Place),
            ("access_key", Access),
            ("secret_key", Access),
            ("security_token", Access),
            ("ecs_role_name", Access),
            ("role_arn", Access),
            ("assume_role", Access),
            ("assume_role_role_arn", Access),
            ("sts_endpoint", Access),
            ("shared_credentials_file", Access),
            ("profile", Access),
        ],
    },
    Settings { name: "pg", args: &[("conn_str", Place), ("schema_name", Place)] },
];

/// The role of an argument of a backend (`cloud` for the cloud block): `Some(None)` for a
/// backend type Terraform does not have, whose every argument is taken to matter (it
/// fails at `init`, but what it meant is unknown); `None` when the argument leaves the
/// state where it is.
pub(super) fn role(backend: &str, arg: &str) -> Option<Option<Role>> {
    match BACKENDS.iter().find(|s| s.name == backend) {
        Some(s) => s.args.iter().find(|(n, _)| *n == arg).map(|&(_, r)| Some(r)),
        None => Some(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each backend once, each argument once in it: the list is the one place to add to.
    #[test]
    fn every_backend_and_argument_is_listed_once() {
        let mut names: Vec<&str> = BACKENDS.iter().map(|s| s.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "{names:?}");
        for s in BACKENDS {
            let mut args: Vec<&str> = s.args.iter().map(|(a, _)| *a).collect();
            args.sort_unstable();
            let n = args.len();
            args.dedup();
            assert_eq!(args.len(), n, "{}", s.name);
        }
        // Terraform 1.15's backends (`terraform init` knows no other), and `cloud`.
        assert_eq!(
            names,
            [
                "azurerm",
                "cloud",
                "consul",
                "cos",
                "gcs",
                "http",
                "inmem",
                "kubernetes",
                "local",
                "oci",
                "oss",
                "pg",
                "remote",
                "s3"
            ]
        );
    }

    #[test]
    fn roles_come_from_the_list() {
        assert_eq!(role("s3", "endpoint"), Some(Some(Place)));
        assert_eq!(role("s3", "profile"), Some(Some(Access)));
        assert_eq!(role("s3", "skip_credentials_validation"), None);
        assert_eq!(role("gcs", "impersonate_service_account"), Some(Some(Access)));
        assert_eq!(role("cloud", "workspaces"), Some(Some(Place)));
        assert_eq!(role("local", "path"), Some(Some(Place)));
        assert_eq!(role("inmem", "lock_id"), None);
        assert_eq!(role("etcdv3", "endpoints"), Some(None));
    }
}
