import { describe, expect, it } from 'vitest';
import { pluralKindName, singularTypeName } from './names.js';
import { nestedTypeName } from './type-emitter.js';

describe('pluralKindName', () => {
  it.each([
    // The plural starts with the kind: the kind's casing and the plural's ending.
    ['TeamNamespace', 'teamnamespaces', 'TeamNamespaces'],
    ['WebApp', 'webapps', 'WebApps'],
    ['Widget', 'widgets', 'Widgets'],
    ['CertificateRequest', 'certificaterequests', 'CertificateRequests'],
    ['ClusterIssuer', 'clusterissuers', 'ClusterIssuers'],
    ['PodDisruptionBudget', 'poddisruptionbudgets', 'PodDisruptionBudgets'],
    ['HorizontalPodAutoscaler', 'horizontalpodautoscalers', 'HorizontalPodAutoscalers'],
    ['CustomResourceDefinition', 'customresourcedefinitions', 'CustomResourceDefinitions'],
    [
      'ValidatingWebhookConfiguration',
      'validatingwebhookconfigurations',
      'ValidatingWebhookConfigurations',
    ],
    ['EndpointSlice', 'endpointslices', 'EndpointSlices'],
    ['ServiceMonitor', 'servicemonitors', 'ServiceMonitors'],
    ['PrometheusRule', 'prometheusrules', 'PrometheusRules'],
    ['VirtualService', 'virtualservices', 'VirtualServices'],
    ['Ingress', 'ingresses', 'Ingresses'],
    ['Mesh', 'meshes', 'Meshes'],
    ['Endpoints', 'endpoints', 'Endpoints'],
    // Acronyms keep their capitals.
    ['APIService', 'apiservices', 'APIServices'],
    ['CSIStorageCapacity', 'csistoragecapacities', 'CSIStorageCapacities'],
    ['IPAddress', 'ipaddresses', 'IPAddresses'],
    ['DNSEndpoint', 'dnsendpoints', 'DNSEndpoints'],
    ['VPC', 'vpcs', 'VPCs'],
    // Irregular plurals: the kind's casing up to where they differ, the rest as the plural has it.
    ['NetworkPolicy', 'networkpolicies', 'NetworkPolicies'],
    ['ClusterPolicy', 'clusterpolicies', 'ClusterPolicies'],
    ['Policy', 'policies', 'Policies'],
    ['Person', 'people', 'People'],
    // …and the kind's later words take its casing where the plural has them.
    ['GooseFeather', 'geesefeathers', 'GeeseFeathers'],
    ['MouseTrap', 'micetraps', 'MiceTraps'],
    // A plural made an identifier; one unlike its kind only capitalised.
    ['FooBar', 'foo-bars', 'FooBars'],
    ['Foo', 'bars', 'Bars'],
  ])('%s (%s) → %s', (kind, plural, expected) => {
    expect(pluralKindName(kind, plural)).toBe(expected);
  });
});

describe('singularTypeName', () => {
  it.each([
    ['TeamNamespaceStatusConditions', 'TeamNamespaceStatusCondition'],
    ['WidgetSpecPorts', 'WidgetSpecPort'],
    ['WidgetSpecParts', 'WidgetSpecPart'],
    ['ConfigEntries', 'ConfigEntry'],
    ['NetworkPolicies', 'NetworkPolicy'],
    ['GatewayAddresses', 'GatewayAddress'],
    ['IngressClasses', 'IngressClass'],
    ['PodStatusContainerStatuses', 'PodStatusContainerStatus'],
    ['HostAliases', 'HostAlias'],
    ['RouteMatches', 'RouteMatch'],
    ['SpecPatches', 'SpecPatch'],
    ['SpecBoxes', 'SpecBox'],
    ['SpecMeshes', 'SpecMesh'],
    ['SpecAnalyses', 'SpecAnalysis'],
    ['SpecReplicas', 'SpecReplica'],
    ['SpecSizes', 'SpecSize'],
    ['SpecLeases', 'SpecLease'],
    ['SpecMetrics', 'SpecMetric'],
    ['SpecKeys', 'SpecKey'],
    ['SpecIps', 'SpecIp'],
    ['StatusPodIPs', 'StatusPodIP'],
    ['SpecCIDRs', 'SpecCIDR'],
    ['SpecIndices', 'SpecIndex'],
    ['SpecChildren', 'SpecChild'],
    ['SpecPeople', 'SpecPerson'],
    ['SpecCaches', 'SpecCache'],
    ['SpecCookies', 'SpecCookie'],
    ['SpecGpus', 'SpecGpu'],
    ['ports', 'port'],
  ])('%s → %s', (name, expected) => {
    expect(singularTypeName(name)).toBe(expected);
  });

  it.each([
    'WidgetStatus',
    'SpecIngress',
    'SpecAddress',
    'SpecAccess',
    'SpecEnv',
    'SpecData',
    'SpecMetadata',
    'SpecTls',
    'SpecTLS',
    'SpecDns',
    'SpecHttps',
    'SpecSeries',
    'SpecBasis',
    'SpecRedis',
    'SpecAlias',
    'SpecKubernetes',
    'SpecOs',
    'SpecItem',
    'Widget',
  ])('%s is not a plural and stays', (name) => {
    expect(singularTypeName(name)).toBe(name);
  });
});

describe('nestedTypeName', () => {
  it('names the element of an array in the singular, nothing else', () => {
    expect(nestedTypeName(['TeamNamespaceStatus', 'conditions', 'item'])).toBe(
      'TeamNamespaceStatusCondition',
    );
    expect(nestedTypeName(['Widget', 'spec', 'rows', 'item', 'item'])).toBe('WidgetSpecRow');
    expect(nestedTypeName(['Widget', 'spec', 'resources', 'value'])).toBe('WidgetSpecResources');
    expect(nestedTypeName(['Widget', 'spec', 'ports', 'value', 'item'])).toBe('WidgetSpecPorts');
    expect(nestedTypeName(['Widget', 'spec', 'ports', 'item'], { singularItems: false })).toBe(
      'WidgetSpecPorts',
    );
  });
});
